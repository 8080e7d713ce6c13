package ui

import "time"

// Envelope is the answer to GET /ui/screen: the screen tree, the overlays it
// can open, the initial state of its inputs and the metadata the renderer
// needs (server time for countdowns, the brand's theme, the CSRF token).
type Envelope struct {
	V        int              `json:"v"`
	Screen   *Node            `json:"screen"`
	Overlays map[string]*Node `json:"overlays,omitempty"`
	Open     []string         `json:"open,omitempty"`
	State    map[string]any   `json:"state,omitempty"`
	Meta     Meta             `json:"meta"`
}

// Meta carries what is not part of the tree itself.
type Meta struct {
	ServerNow   string       `json:"serverNow,omitempty"`
	TraceID     string       `json:"traceId,omitempty"`
	Brand       Brand        `json:"brand"`
	CSRF        string       `json:"csrf,omitempty"`
	Version     string       `json:"version,omitempty"`
	Experiments []Experiment `json:"experiments,omitempty"`
}

// Brand is the presentation data of one brand: its name, logo and theme
// colours, applied by the renderer as CSS variables.
type Brand struct {
	Key          string            `json:"key"`
	Name         string            `json:"name"`
	Tagline      string            `json:"tagline,omitempty"`
	Logo         *ImageRef         `json:"logo,omitempty"`
	SupportEmail string            `json:"supportEmail,omitempty"`
	Theme        map[string]string `json:"theme"`
}

// Experiment names an A/B experiment and the variant this person sees.
type Experiment struct {
	Key     string `json:"key"`
	Variant string `json:"variant"`
}

// Result is the answer to POST /ui/actions/:name when it is not a whole
// screen: effects to run, errors to show, or a request to reload.
type Result struct {
	Effects []*Action     `json:"effects,omitempty"`
	Errors  *ResultErrors `json:"errors,omitempty"`
	Reload  bool          `json:"reload,omitempty"`
	// Screen, when set, is sent instead of the result: the whole envelope
	// that replaces the current screen.
	Screen *Envelope `json:"-"`
}

// ResultErrors are the messages shown under inputs (by input id) and on the
// form as a whole.
type ResultErrors struct {
	Fields map[string]string `json:"fields,omitempty"`
	Form   string            `json:"form,omitempty"`
}

// Effects is a Result that runs the given actions.
func Effects(actions ...*Action) *Result { return &Result{Effects: actions} }

// Timestamp formats t as the schema's date-time.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
