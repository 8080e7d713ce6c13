import "./layout.css";

/** A thematic break. */
export function Divider() {
  return <hr className="divider" />;
}
