import { useEffect, useRef, useState } from "react";
import { type NodeProps, useRemaining, useRun, t } from "../runtime/hooks";
import "./countdown.css";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Months are 30 days: a countdown shows a span of time, not calendar dates. */
const MONTH = 30 * DAY;

const UNITS = [
  { name: "months", size: MONTH },
  { name: "days", size: DAY },
  { name: "hours", size: HOUR },
  { name: "minutes", size: MINUTE },
  { name: "seconds", size: SECOND },
] as const;

/** Splits a duration into months, days, hours, minutes and seconds. */
export function breakdown(ms: number): { name: (typeof UNITS)[number]["name"]; value: number }[] {
  let rest = Math.max(0, Math.floor(ms / SECOND) * SECOND);
  return UNITS.map(({ name, size }) => {
    const value = Math.floor(rest / size);
    rest -= value * size;
    return { name, value };
  });
}

/**
 * Counts down to endsAt by the server's clock, ticking each second; renders nothing once nothing
 * remains and then runs onExpire once (only if it was running: an already expired countdown on
 * arrival does not fire, so a refresh cannot loop).
 */
export function Countdown({ node, pointer }: NodeProps<"countdown">) {
  const remaining = useRemaining(node.endsAt);
  const expired = !(remaining > 0);
  const [armed] = useState(!expired);
  const fired = useRef(false);
  const run = useRun(pointer);
  const { onExpire } = node;

  useEffect(() => {
    if (!expired || !armed || fired.current || onExpire === undefined) return;
    fired.current = true;
    run(onExpire);
  }, [expired, armed, onExpire, run]);

  if (expired) return null;
  return (
    <div className="countdown" role="timer" aria-label={node.label ?? t("countdown.label")}>
      {node.label !== undefined && (
        <span className="countdown__label" aria-hidden="true">
          {node.label}
        </span>
      )}
      <span className="countdown__units">
        {breakdown(remaining).map(({ name, value }) => (
          <span key={name} className="countdown__unit">
            {/* The page may hold the server's count from a moment earlier: adopted as it is. */}
            <span className="countdown__value" suppressHydrationWarning>
              {String(value).padStart(2, "0")}
            </span>
            <span className="countdown__name">{t(`countdown.${name}`)}</span>
          </span>
        ))}
      </span>
    </div>
  );
}
