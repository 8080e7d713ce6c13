// Package ui holds the vocabulary of the server-driven UI: the node and action
// types the screens compose, builders that keep screen code short, and the
// JSON Schema (schema.json) every composed screen is validated against. The
// renderer mirrors the same schema with zod; protocol.md says how it behaves.
package ui

import "encoding/json"

// SchemaVersion is the major version of the screen contract. The renderer
// announces the version it understands in the X-SDUI-Version header.
const SchemaVersion = 1

// Node is one element of a screen tree. A single struct serves every node
// type: the JSON Schema, not the Go type system, says which fields each type
// allows (unevaluatedProperties: false), and the golden tests validate every
// composed screen against it. Zero values are omitted from the JSON.
type Node struct {
	Type     string     `json:"type"`
	ID       string     `json:"id,omitempty"`
	Visible  *Condition `json:"visible,omitempty"`
	Fallback *Node      `json:"fallback,omitempty"`

	Title    string `json:"title,omitempty"`
	Subtitle string `json:"subtitle,omitempty"`
	Text     string `json:"text,omitempty"`
	Label    string `json:"label,omitempty"`
	Layout   string `json:"layout,omitempty"`
	// Width is a screen's: "wide" lets it leave the phone column on a desk.
	Width string `json:"width,omitempty"`

	Header   *Node   `json:"header,omitempty"`
	Children []*Node `json:"children,omitzero"`
	Footer   *Node   `json:"footer,omitempty"`
	// OnLoad runs once when a screen arrives (e.g. to start a slow check).
	OnLoad   *Action `json:"onLoad,omitempty"`
	Leading  *Node   `json:"leading,omitempty"`
	Trailing *Node   `json:"trailing,omitempty"`

	// header
	Back            *Action   `json:"back,omitempty"`
	BackLabel       string    `json:"backLabel,omitempty"`
	Logo            *ImageRef `json:"logo,omitempty"`
	Menu            string    `json:"menu,omitempty"`
	MenuLabel       string    `json:"menuLabel,omitempty"`
	ElevateOnScroll bool      `json:"elevateOnScroll,omitempty"`

	// layout and text
	Gap     string `json:"gap,omitempty"`
	Align   string `json:"align,omitempty"`
	Justify string `json:"justify,omitempty"`
	Wrap    bool   `json:"wrap,omitempty"`
	Padded  bool   `json:"padded,omitempty"`
	Style   string `json:"style,omitempty"`
	Tone    string `json:"tone,omitempty"`
	Live    string `json:"live,omitempty"`
	// Focus is a text's: it takes the keyboard focus when the screen shows
	// it (the heading of what a desk just opened).
	Focus bool `json:"focus,omitempty"`

	Blocks []RichBlock `json:"blocks,omitzero"`

	// image and icon
	Src    string  `json:"src,omitempty"`
	Alt    *string `json:"alt,omitempty"`
	Aspect string  `json:"aspect,omitempty"`
	Fit    string  `json:"fit,omitempty"`
	Size   string  `json:"size,omitempty"`
	// Intrinsic is an image's own size, so its room is kept before it loads.
	Intrinsic *Dimensions `json:"intrinsic,omitempty"`
	Name      string      `json:"name,omitempty"`
	Image     *ImageRef   `json:"image,omitempty"`

	// interactive
	Action       *Action    `json:"action,omitempty"`
	ActionLabel  string     `json:"actionLabel,omitempty"`
	Emphasis     string     `json:"emphasis,omitempty"`
	Icon         string     `json:"icon,omitempty"`
	DisabledWhen *Condition `json:"disabledWhen,omitempty"`

	// list
	Divided bool `json:"divided,omitempty"`
	Ordered bool `json:"ordered,omitempty"`

	// data display
	Value        *NullableString `json:"value,omitempty"`
	Caption      string          `json:"caption,omitempty"`
	PendingLabel string          `json:"pendingLabel,omitempty"`
	Level        *int            `json:"level,omitempty"`
	ValueLabel   string          `json:"valueLabel,omitempty"`
	Status       string          `json:"status,omitempty"`
	Posts        []Post          `json:"posts,omitzero"`
	EndsAt       string          `json:"endsAt,omitempty"`
	OnExpire     *Action         `json:"onExpire,omitempty"`
	Fullscreen   bool            `json:"fullscreen,omitempty"`
	Sticky       string          `json:"sticky,omitempty"`

	// forms
	Submit       *Action  `json:"submit,omitempty"`
	Form         string   `json:"form,omitempty"`
	Bind         string   `json:"bind,omitempty"`
	Watch        string   `json:"watch,omitempty"`
	Kind         string   `json:"kind,omitempty"`
	Placeholder  string   `json:"placeholder,omitempty"`
	Autocomplete string   `json:"autocomplete,omitempty"`
	Rules        []Rule   `json:"rules,omitempty"`
	Disabled     bool     `json:"disabled,omitempty"`
	Rows         int      `json:"rows,omitempty"`
	MaxLength    int      `json:"maxLength,omitempty"`
	Options      []Option `json:"options,omitempty"`
	// Search labels a choice list's search box, which filters a long list
	// of options as the person types; Empty is what shows when nothing
	// matches.
	Search string `json:"search,omitempty"`
	Empty  string `json:"empty,omitempty"`
	Max    int    `json:"max,omitempty"`

	// dialog and steps
	Presentation string  `json:"presentation,omitempty"`
	Dismissible  bool    `json:"dismissible,omitempty"`
	CloseLabel   string  `json:"closeLabel,omitempty"`
	OnClose      *Action `json:"onClose,omitempty"`
	// Outcome draws a dialog as the outcome of a task ("success"): its
	// title is the centred headline under the outcome's mark.
	Outcome string `json:"outcome,omitempty"`
	Steps   []Step `json:"steps,omitempty"`

	// chart
	Points []ChartPoint `json:"points,omitzero"`

	// name_list: a list of names read a page at a time from Src, searched
	// and extended as the reader scrolls; each name links to Href with
	// {name} filled in (a new tab, LinkHint said to screen readers).
	SearchLabel string `json:"searchLabel,omitempty"`
	MoreLabel   string `json:"moreLabel,omitempty"`
	CountLabel  string `json:"countLabel,omitempty"`
	Href        string `json:"href,omitempty"`
	LinkHint    string `json:"linkHint,omitempty"`

	// file input
	Accept          string `json:"accept,omitempty"`
	Help            string `json:"help,omitempty"`
	MaxBytes        int64  `json:"maxBytes,omitempty"`
	RequiredMessage string `json:"requiredMessage,omitempty"`
	TooLargeMessage string `json:"tooLargeMessage,omitempty"`
}

// ChartPoint is one point of a line chart: its x label, its value and how
// the value reads to a person.
type ChartPoint struct {
	X      string  `json:"x"`
	Y      float64 `json:"y"`
	YLabel string  `json:"yLabel"`
}

// NullableString encodes a value that is either a string or an explicit
// null, as a stat tile's value is null while the analysis is still running.
type NullableString struct {
	S     string
	Valid bool
}

// MarshalJSON writes the string, or null when not Valid.
func (n NullableString) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return marshalString(n.S), nil
}

// UnmarshalJSON reads a string. (A JSON null never reaches it: decoding
// leaves the field's pointer nil, so tests compare such nodes as documents.)
func (n *NullableString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = NullableString{}
		return nil
	}
	n.Valid = true
	return json.Unmarshal(b, &n.S)
}

// ImageRef points at an image and says what it shows.
type ImageRef struct {
	Src string `json:"src"`
	Alt string `json:"alt"`
	// Intrinsic is the image's own size, when it is known.
	Intrinsic *Dimensions `json:"intrinsic,omitempty"`
}

// Dimensions is an image's own size in pixels (an SVG's width and height):
// the page reserves the image's room from it before the picture has loaded,
// so nothing below it moves when it arrives.
type Dimensions struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Post is one entry of a post list: a picture with its date and a count.
type Post struct {
	Image      ImageRef `json:"image"`
	DateLabel  string   `json:"dateLabel"`
	CountLabel string   `json:"countLabel"`
	Date       string   `json:"date,omitempty"`
}

// Option is one choice of a choice list.
type Option struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	// Group is the heading a choice list's option is listed under.
	Group string `json:"group,omitempty"`
	// Image is an image choice's thumbnail.
	Image *ImageRef `json:"image,omitempty"`
}

// Step is one page of a client-side steps node.
type Step struct {
	ID       string  `json:"id"`
	Children []*Node `json:"children"`
}

// RichBlock is a block of rich text: a heading, a paragraph or a list. Rich
// text is parsed on the server into these blocks; raw HTML never reaches the
// renderer.
type RichBlock struct {
	Kind    string   `json:"kind"`
	Level   int      `json:"level,omitempty"`
	Ordered bool     `json:"ordered,omitempty"`
	Spans   []Span   `json:"spans,omitempty"`
	Items   [][]Span `json:"items,omitempty"`
}

// Span is a run of inline text with optional emphasis, a diff's mark or a
// link.
type Span struct {
	Text   string `json:"text"`
	Strong bool   `json:"strong,omitempty"`
	Em     bool   `json:"em,omitempty"`
	// Ins and Del mark text a revision added or removed (a word diff):
	// drawn as <ins> and <del>, each also named in words for screen readers.
	Ins  bool   `json:"ins,omitempty"`
	Del  bool   `json:"del,omitempty"`
	Href string `json:"href,omitempty"`
}

// Rule is a declarative validation rule with the message it shows. The
// renderer checks it on submit; the server checks a form action's values
// against the same rules of the screen's form (see CheckForm).
type Rule struct {
	Kind    string     `json:"kind"`
	Message string     `json:"message"`
	Value   any        `json:"value,omitempty"`
	Path    string     `json:"path,omitempty"`
	When    *Condition `json:"when,omitempty"`
}
