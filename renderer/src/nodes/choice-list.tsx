import { type ChangeEvent, useId, useRef, useState } from "react";
import { type NodeProps, useField } from "../runtime/hooks";
import { cx } from "./class-names";
import { FieldError } from "./field-parts";
import "./field.css";

type Option = NodeProps<"choice_list">["node"]["options"][number];

/** Whether an option holds every word of the query, in its label, description, value or group. */
export function optionMatches(option: Option, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return true;
  const text = [option.label, option.description ?? "", option.value, option.group ?? ""].join("\n").toLowerCase();
  return words.every((word) => text.includes(word));
}

/** Adjacent options of one group, in order; options without a group form groups without a heading. */
export function groupOptions(options: readonly Option[]): { heading: string | undefined; options: Option[] }[] {
  const groups: { heading: string | undefined; options: Option[] }[] = [];
  for (const option of options) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last.heading === option.group) last.options.push(option);
    else groups.push({ heading: option.group, options: [option] });
  }
  return groups;
}

/**
 * A single choice among options (radio buttons drawn as cards), bound to the state. A long list
 * (`search` set) has a search box above its options that filters them as the person types, and
 * scrolls within its own box; options may sit under group headings.
 */
export function ChoiceList({ node }: NodeProps<"choice_list">) {
  const first = useRef<HTMLInputElement>(null);
  const { value, setValue, error } = useField(node, first);
  const [query, setQuery] = useState("");
  const groupId = useId();
  const errorId = `${groupId}-error`;
  const searchable = node.search !== undefined;
  const shown = searchable ? node.options.filter((option) => optionMatches(option, query)) : node.options;
  let index = 0;
  const radio = (option: Option) => {
    const at = index++;
    return (
      <label key={option.value} className="choice">
        <input
          ref={at === 0 ? first : undefined}
          type="radio"
          className="choice__input"
          name={groupId}
          value={option.value}
          checked={value === option.value}
          aria-invalid={error !== undefined || undefined}
          onChange={() => setValue(option.value)}
        />
        <span className="choice__text">
          <span className="choice__label">{option.label}</span>
          {option.description !== undefined && <span className="choice__description">{option.description}</span>}
        </span>
      </label>
    );
  };
  const options = groupOptions(shown).map((group, at) =>
    group.heading === undefined ? (
      group.options.map(radio)
    ) : (
      <div key={`${group.heading}-${at}`} className="choice-list__group" role="group" aria-labelledby={`${groupId}-g${at}`}>
        <p id={`${groupId}-g${at}`} className="choice-list__heading">
          {group.heading}
        </p>
        {group.options.map(radio)}
      </div>
    ),
  );
  return (
    <fieldset
      className={cx("field choice-list", searchable && "choice-list--searchable", error !== undefined && "field--invalid")}
      aria-describedby={error !== undefined ? errorId : undefined}
    >
      <legend className="field__label">{node.label}</legend>
      {searchable && (
        <label className="choice-list__search">
          <span className="choice-list__search-label">{node.search}</span>
          <input
            type="search"
            className="field__input"
            value={query}
            placeholder={node.placeholder}
            autoComplete="off"
            onChange={(event: ChangeEvent<HTMLInputElement>) => setQuery(event.target.value)}
          />
        </label>
      )}
      {searchable ? (
        <div className="choice-list__options">
          {options}
          {shown.length === 0 && (
            <p className="choice-list__empty" role="status">
              {node.empty}
            </p>
          )}
        </div>
      ) : (
        options
      )}
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
