// A render error in a subtree shows the generic error text in its place; the rest stays.
import { Component, type ErrorInfo, type ReactNode } from "react";
import { t } from "./copy";

interface State {
  failed: boolean;
}

export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error("Glimpse: render error", error, info.componentStack);
  }

  override render(): ReactNode {
    if (this.state.failed) return <p className="render-error">{t("genericError")}</p>;
    return this.props.children;
  }
}
