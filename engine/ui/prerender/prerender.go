// Package prerender draws a screen envelope as the HTML the renderer's first
// render makes, so a page can be painted before its script has loaded.
//
// The renderer (renderer/src/nodes) stays the one that runs the app: it
// replaces this markup with its own when it mounts. What is drawn here must
// therefore be what React will draw, element for element, or the page would
// jump when it mounts. renderer/src/prerender.test.tsx holds every golden in
// fixtures/prerender to the React output of the same fixture.
//
// Only node types whose first render depends on nothing but the envelope are
// drawn (no layout measurement, no browser state; a countdown's clock is the
// envelope's serverNow). Each node type of schema.json is decided on purpose:
// drawers lists the types drawn, decision_test.go's notDrawn the others with
// the reason, and TestEveryNodeTypeIsDecided fails for a type in neither. A
// screen holding a type not drawn, a node shown under a condition, or an
// overlay open at load is not prerendered at all: the renderer draws it as
// before.
package prerender

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/ui"
)

// Words are the renderer's own words for the brand (its renderer.* copy
// without the prefix): a header's "Back" and "Menu", a password's reveal
// button.
type Words func(key string) string

// Page is a prerendered screen.
type Page struct {
	// Root is the markup inside <div id="root">.
	Root []byte
	// Title is the document title the renderer sets for the screen.
	Title string
	// Theme is the brand's colours as CSS declarations on :root, the ones
	// the renderer sets as --color-* properties (runtime/theme.ts); "" when
	// the brand has none.
	Theme string
}

// errUnsupported marks an envelope the renderer must draw itself.
var errUnsupported = errors.New("prerender: not drawn on the server")

// Screen draws the envelope GET /ui/screen answered. ok is false when the
// envelope holds anything not drawn here; the page is then served without.
func Screen(envelope []byte, words Words) (page Page, ok bool) {
	var env struct {
		Screen map[string]any `json:"screen"`
		State  any            `json:"state"`
		Open   []string       `json:"open"`
		Meta   struct {
			ServerNow string `json:"serverNow"`
			Brand     struct {
				Name  string            `json:"name"`
				Theme map[string]string `json:"theme"`
			} `json:"brand"`
		} `json:"meta"`
	}
	decoder := json.NewDecoder(bytes.NewReader(envelope))
	decoder.UseNumber()
	if decoder.Decode(&env) != nil || env.Screen == nil || len(env.Open) > 0 {
		return Page{}, false
	}
	theme, ok := themeRule(env.Meta.Brand.Theme)
	if !ok {
		return Page{}, false
	}
	d := &drawer{state: env.State, words: words}
	// A countdown counts from the server's time; without it, none is drawn.
	d.now, _ = time.Parse(time.RFC3339Nano, env.Meta.ServerNow)
	d.raw(`<div class="app">`)
	if err := d.node(env.Screen); err != nil {
		return Page{}, false
	}
	d.raw(`</div>`)
	title, _ := env.Screen["title"].(string)
	return Page{Root: d.out.Bytes(), Title: documentTitle(title, env.Meta.Brand.Name), Theme: theme}, true
}

// documentTitle is runtime/theme.ts's documentTitle: "Screen · Brand", or the
// brand's name alone.
func documentTitle(screenTitle, brandName string) string {
	title := strings.TrimSpace(screenTitle)
	if title == "" || title == brandName {
		return brandName
	}
	return title + " · " + brandName
}

// themeRule writes the theme as declarations. A key or value that could end
// the rule early is refused (the brand is then drawn by the renderer alone).
func themeRule(theme map[string]string) (string, bool) {
	if len(theme) == 0 {
		return "", true
	}
	var b strings.Builder
	for _, key := range slices.Sorted(maps.Keys(theme)) {
		value := theme[key]
		if !cssSafe(key) || !cssSafe(value) {
			return "", false
		}
		b.WriteString("--color-" + key + ":" + value + ";")
	}
	return b.String(), true
}

// cssSafe admits what a colour is written with: letters, digits, #, %, ., ,
// spaces, parentheses and slashes (rgb(0 0 0 / 12%)).
func cssSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("#%., ()/-", r):
		default:
			return false
		}
	}
	return true
}

// drawer writes one screen. ids numbers the element ids React's useId gives
// (a label's input, a card's content); they need only be unique in the page,
// as the renderer's own replace them.
type drawer struct {
	out   bytes.Buffer
	state any
	words Words
	ids   int
	// form is the id of the form being drawn ("" outside one).
	form string
	// now is the envelope's server time (zero when it has none).
	now time.Time
}

func (d *drawer) raw(s string) { d.out.WriteString(s) }

func (d *drawer) text(s string) { d.out.WriteString(html.EscapeString(s)) }

// textElement writes <tag class="class">text</tag>, the text escaped.
func (d *drawer) textElement(tag, class, text string) {
	d.raw(`<` + tag + ` class="` + class + `">`)
	d.text(text)
	d.raw(`</` + tag + `>`)
}

// attr writes name="value", escaped.
func (d *drawer) attr(name, value string) {
	d.out.WriteString(" " + name + `="` + html.EscapeString(value) + `"`)
}

func (d *drawer) newID() string {
	d.ids++
	return "g" + strconv.Itoa(d.ids)
}

// word is the brand's renderer word for key ("" without words).
func (d *drawer) word(key string) string {
	if d.words == nil {
		return ""
	}
	return d.words(key)
}

// classes joins the non-empty class names, as nodes/class-names.ts's cx,
// escaped for an attribute (the names carry node values: a tone, a gap).
func classes(names ...string) string {
	kept := names[:0]
	for _, n := range names {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return html.EscapeString(strings.Join(kept, " "))
}

// when returns name if cond holds, else "".
func when(cond bool, name string) string {
	if cond {
		return name
	}
	return ""
}

func str(n map[string]any, key string) (string, bool) {
	s, ok := n[key].(string)
	return s, ok
}

func strOr(n map[string]any, key, fallback string) string {
	if s, ok := n[key].(string); ok {
		return s
	}
	return fallback
}

func isTrue(n map[string]any, key string) bool {
	b, _ := n[key].(bool)
	return b
}

func children(n map[string]any, key string) ([]map[string]any, error) {
	raw, present := n[key]
	if !present {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errUnsupported
	}
	out := make([]map[string]any, 0, len(list))
	for _, item := range list {
		child, ok := item.(map[string]any)
		if !ok {
			return nil, errUnsupported
		}
		out = append(out, child)
	}
	return out, nil
}

func (d *drawer) nodes(n map[string]any, key string) error {
	kids, err := children(n, key)
	if err != nil {
		return err
	}
	for _, kid := range kids {
		if err := d.node(kid); err != nil {
			return err
		}
	}
	return nil
}

// child draws the node under key, if there is one.
func (d *drawer) child(n map[string]any, key string) error {
	raw, present := n[key]
	if !present {
		return nil
	}
	kid, ok := raw.(map[string]any)
	if !ok {
		return errUnsupported
	}
	return d.node(kid)
}

func (d *drawer) node(n map[string]any) error {
	if _, conditional := n["visible"]; conditional {
		return errUnsupported
	}
	kind, _ := str(n, "type")
	draw, ok := drawers[kind]
	if !ok {
		return errUnsupported
	}
	return draw(d, n)
}

// drawers maps the node types drawn here to their markup; each mirrors the
// component of the same name in renderer/src/nodes. Every other node type is
// left to the renderer on purpose, with the reason, in decision_test.go's
// notDrawn; TestEveryNodeTypeIsDecided fails for a type of schema.json in
// neither list.
var drawers map[string]func(*drawer, map[string]any) error

func init() {
	drawers = map[string]func(*drawer, map[string]any) error{
		ui.NodeTypeScreen:     (*drawer).screen,
		ui.NodeTypeHeader:     (*drawer).header,
		ui.NodeTypeFooter:     (*drawer).footer,
		ui.NodeTypeStack:      (*drawer).stack,
		ui.NodeTypeRow:        (*drawer).row,
		ui.NodeTypeText:       (*drawer).textNode,
		ui.NodeTypeImage:      (*drawer).image,
		ui.NodeTypeIcon:       (*drawer).icon,
		ui.NodeTypeButton:     (*drawer).button,
		ui.NodeTypeLink:       (*drawer).link,
		ui.NodeTypeCard:       (*drawer).card,
		ui.NodeTypeList:       (*drawer).list,
		ui.NodeTypeDivider:    (*drawer).divider,
		ui.NodeTypeBadge:      (*drawer).badge,
		ui.NodeTypeLevelMeter: (*drawer).levelMeter,
		ui.NodeTypeForm:       (*drawer).formNode,
		ui.NodeTypeFormError:  (*drawer).formError,
		ui.NodeTypeTextInput:  (*drawer).textInput,
		ui.NodeTypeStatTile:   (*drawer).statTile,
		ui.NodeTypeListItem:   (*drawer).listItem,
		ui.NodeTypePostList:   (*drawer).postList,
		ui.NodeTypeBanner:     (*drawer).banner,
		ui.NodeTypeCountdown:  (*drawer).countdown,
		ui.NodeTypeChart:      (*drawer).chart,
	}
}
