package ui

import "encoding/json"

// Action is something a person can make happen: navigate, submit a form to a
// named server action, open an overlay, and so on. Actions are data; the
// renderer runs them and the server answers submits with more of them
// (effects). See protocol.md for what each type does.
type Action struct {
	Type      string    `json:"type"`
	To        string    `json:"to,omitempty"`
	Fallback  string    `json:"fallback,omitempty"`
	URL       string    `json:"url,omitempty"`
	NewWindow bool      `json:"newWindow,omitempty"`
	Name      string    `json:"action,omitempty"`
	Form      string    `json:"form,omitempty"`
	Include   []string  `json:"include,omitempty"`
	Validate  string    `json:"validate,omitempty"`
	ID        string    `json:"id,omitempty"`
	Path      string    `json:"path,omitempty"`
	Value     *RawValue `json:"value,omitempty"`
	MS        *int      `json:"ms,omitempty"`
	Then      *Action   `json:"then,omitempty"`
	Filename  string    `json:"filename,omitempty"`
	Event     string    `json:"event,omitempty"`
	Props     any       `json:"props,omitempty"`
	Actions   []*Action `json:"actions,omitempty"`
	Input     string    `json:"input,omitempty"`
}

// RawValue wraps any JSON value so that set_state can carry false, 0 or null
// without omitempty dropping it.
type RawValue struct{ V any }

// MarshalJSON writes the wrapped value as it is.
func (r RawValue) MarshalJSON() ([]byte, error) { return json.Marshal(r.V) }

// UnmarshalJSON reads any JSON value.
func (r *RawValue) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &r.V) }

// Navigate pushes a history entry for an in-app path.
func Navigate(to string) *Action { return &Action{Type: ActionTypeNavigate, To: to} }

// Replace replaces the current history entry with an in-app path; guards use it.
func Replace(to string) *Action { return &Action{Type: ActionTypeReplace, To: to} }

// Back goes back in history, or to fallback when there is nowhere to go back to.
func Back(fallback string) *Action { return &Action{Type: ActionTypeBack, Fallback: fallback} }

// OpenURL leaves the app for url; newWindow opens it in a new tab.
func OpenURL(url string, newWindow bool) *Action {
	return &Action{Type: ActionTypeOpenUrl, URL: url, NewWindow: newWindow}
}

// Submit posts a form's values to the named server action.
func Submit(action, form string) *Action {
	return &Action{Type: ActionTypeSubmit, Name: action, Form: form}
}

// Call posts to the named server action without a form and without validation.
func Call(action string, include ...string) *Action {
	return &Action{Type: ActionTypeSubmit, Name: action, Include: include, Validate: "none"}
}

// OpenOverlay opens the dialog with the given id from the envelope's overlays.
func OpenOverlay(id string) *Action { return &Action{Type: ActionTypeOpenOverlay, ID: id} }

// CloseOverlay closes the dialog with the given id, or the topmost when id is "".
func CloseOverlay(id string) *Action { return &Action{Type: ActionTypeCloseOverlay, ID: id} }

// SetState writes value at the JSON Pointer path of the screen's state.
func SetState(path string, value any) *Action {
	return &Action{Type: ActionTypeSetState, Path: path, Value: &RawValue{V: value}}
}

// After runs then once ms milliseconds have passed.
func After(ms int, then *Action) *Action { return &Action{Type: ActionTypeAfter, MS: &ms, Then: then} }

// Download fetches a same-origin file.
func Download(url, filename string) *Action {
	return &Action{Type: ActionTypeDownload, URL: url, Filename: filename}
}

// SignOut ends the session.
func SignOut() *Action { return &Action{Type: ActionTypeSignOut} }

// Track records an analytics event.
func Track(event string, props map[string]any) *Action {
	a := &Action{Type: ActionTypeTrack, Event: event}
	if len(props) > 0 {
		a.Props = props
	}
	return a
}

// Reload makes the renderer reload the whole page.
func Reload() *Action { return &Action{Type: ActionTypeReload} }

// Refresh fetches the current screen again.
func Refresh() *Action { return &Action{Type: ActionTypeRefresh} }

// Upload posts the file chosen in a file input to the named server action.
func Upload(action, input string) *Action {
	return &Action{Type: ActionTypeUpload, Name: action, Input: input}
}

// Sequence runs actions in order, stopping at the first that fails.
func Sequence(actions ...*Action) *Action { return &Action{Type: ActionTypeSequence, Actions: actions} }
