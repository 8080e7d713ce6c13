package prerender

import (
	"encoding/json"
	"strconv"
	"strings"

	"glimpse/engine/ui"
)

// Each method here draws what the component of the same node type in
// renderer/src/nodes draws on its first render, attributes included.

func (d *drawer) screen(n map[string]any) error {
	_, hasHeader := n["header"]
	d.raw(`<div class="` + classes("screen", "screen--"+strOr(n, "layout", "page"),
		when(strOr(n, "width", "") == "wide" || strOr(n, "width", "") == "desk", "screen--wide"), when(strOr(n, "width", "") == "desk", "screen--desk"), when(hasHeader, "screen--with-header")) + `">`)
	if err := d.child(n, "header"); err != nil {
		return err
	}
	d.raw(`<main id="main" class="screen__main" tabindex="-1">`)
	if err := d.nodes(n, "children"); err != nil {
		return err
	}
	d.raw(`</main>`)
	if err := d.child(n, "footer"); err != nil {
		return err
	}
	d.raw(`</div>`)
	return nil
}

func (d *drawer) header(n map[string]any) error {
	d.raw(`<header class="` + classes("header", when(isTrue(n, "elevateOnScroll"), "header--elevating")) + `">`)
	if back, ok := n["back"].(map[string]any); ok {
		label := d.word("back")
		if own, ok := str(n, "backLabel"); ok {
			label = own
		}
		if err := d.actionElement(back, actionOptions{className: classes("icon-button header__back"), label: &label},
			func() { d.glyph("back", "", "") }); err != nil {
			return err
		}
	}
	if logo, ok := n["logo"].(map[string]any); ok {
		d.raw(`<img class="header__logo"`)
		d.attr("src", strOr(logo, "src", ""))
		d.attr("alt", strOr(logo, "alt", ""))
		d.intrinsic(logo)
		d.raw(`>`)
	}
	if title := strOr(n, "title", ""); title != "" {
		d.textElement("h1", "header__title", title)
	}
	if _, ok := str(n, "menu"); ok {
		label := d.word("menu")
		if own, ok := str(n, "menuLabel"); ok {
			label = own
		}
		d.raw(`<button type="button" class="icon-button header__menu"`)
		d.attr("aria-label", label)
		d.raw(` aria-haspopup="dialog" aria-expanded="false">`)
		d.glyph("menu", "", "")
		d.raw(`</button>`)
	}
	d.raw(`</header>`)
	return nil
}

func (d *drawer) footer(n map[string]any) error {
	d.raw(`<footer class="footer">`)
	if title, ok := str(n, "title"); ok {
		d.textElement("p", "footer__title", title)
	}
	if subtitle, ok := str(n, "subtitle"); ok {
		d.textElement("p", "footer__subtitle", subtitle)
	}
	kids, err := children(n, "children")
	if err != nil {
		return err
	}
	if len(kids) > 0 {
		d.raw(`<div class="footer__links">`)
		if err := d.nodes(n, "children"); err != nil {
			return err
		}
		d.raw(`</div>`)
	}
	d.raw(`</footer>`)
	return nil
}

func (d *drawer) stack(n map[string]any) error {
	tone, toned := str(n, "tone")
	d.raw(`<div class="` + classes("stack", "gap-"+strOr(n, "gap", "md"), "align-"+strOr(n, "align", "stretch"),
		when(toned, "stack--tone tone-"+tone), when(isTrue(n, "padded"), "stack--padded")) + `">`)
	if err := d.nodes(n, "children"); err != nil {
		return err
	}
	d.raw(`</div>`)
	return nil
}

func (d *drawer) row(n map[string]any) error {
	d.raw(`<div class="` + classes("row", "gap-"+strOr(n, "gap", "sm"), "align-"+strOr(n, "align", "center"),
		"justify-"+strOr(n, "justify", "start"), when(isTrue(n, "wrap"), "row--wrap")) + `">`)
	if err := d.nodes(n, "children"); err != nil {
		return err
	}
	d.raw(`</div>`)
	return nil
}

// textTags is nodes/text.tsx's TAGS.
var textTags = map[string]string{
	"display": "h1", "title": "h2", "heading": "h2", "subheading": "h3",
	"body": "p", "caption": "p", "label": "p", "overline": "p",
}

func (d *drawer) textNode(n map[string]any) error {
	style := strOr(n, "style", "body")
	tag, ok := textTags[style]
	if !ok {
		return errUnsupported
	}
	tone, toned := str(n, "tone")
	align, aligned := str(n, "align")
	d.raw(`<` + tag + ` class="` + classes("text", "text--"+style, when(toned, "tone-text-"+tone),
		when(aligned, "text-align-"+align)) + `"`)
	if live, ok := str(n, "live"); ok {
		d.attr("aria-live", live)
	}
	d.raw(`>`)
	d.text(strOr(n, "text", ""))
	d.raw(`</` + tag + `>`)
	return nil
}

func (d *drawer) image(n map[string]any) error {
	d.raw(`<img class="` + classes("image", "image--"+strOr(n, "aspect", "auto"), "image--fit-"+strOr(n, "fit", "cover"),
		"image--size-"+strOr(n, "size", "full")) + `"`)
	d.attr("src", strOr(n, "src", ""))
	d.attr("alt", strOr(n, "alt", ""))
	d.intrinsic(n)
	d.raw(` decoding="async">`)
	return nil
}

// intrinsic writes an image's own size (its "intrinsic" object) as width and
// height, which the browser keeps room for before the picture loads.
func (d *drawer) intrinsic(image map[string]any) {
	size, ok := image["intrinsic"].(map[string]any)
	if !ok {
		return
	}
	for _, side := range []string{"width", "height"} {
		if v, ok := size[side].(json.Number); ok {
			if n, err := strconv.Atoi(v.String()); err == nil && n > 0 {
				d.attr(side, strconv.Itoa(n))
			}
		}
	}
}

func (d *drawer) icon(n map[string]any) error {
	name := strOr(n, "name", "")
	if _, ok := ui.IconPaths[name]; !ok {
		return errUnsupported
	}
	tone, toned := str(n, "tone")
	d.glyph(name, strOr(n, "label", ""), classes("icon--"+strOr(n, "size", "md"), when(toned, "tone-text-"+tone)))
	return nil
}

func (d *drawer) button(n map[string]any) error {
	if _, conditional := n["disabledWhen"]; conditional {
		return errUnsupported
	}
	action, ok := n["action"].(map[string]any)
	if !ok {
		return errUnsupported
	}
	target, _ := str(action, "form")
	submits := d.form != "" && strOr(action, "type", "") == ui.ActionTypeSubmit && (target == "" || target == d.form)
	tone, toned := str(n, "tone")
	icon := strOr(n, "icon", "")
	return d.actionElement(action, actionOptions{
		className: classes("button", "button--"+strOr(n, "emphasis", "primary"), when(toned, "tone-"+tone)),
		submit:    submits,
	}, func() {
		if _, ok := ui.IconPaths[icon]; ok {
			d.glyph(icon, "", "")
		}
		d.textElement("span", "button__label", strOr(n, "label", ""))
	})
}

func (d *drawer) link(n map[string]any) error {
	action, ok := n["action"].(map[string]any)
	if !ok {
		return errUnsupported
	}
	tone, toned := str(n, "tone")
	icon := strOr(n, "icon", "")
	return d.actionElement(action, actionOptions{className: classes("link", when(toned, "tone-text-"+tone))}, func() {
		if _, ok := ui.IconPaths[icon]; ok && icon != "chevron" {
			d.glyph(icon, "", "")
		}
		d.textElement("span", "link__label", strOr(n, "label", ""))
		if icon == "chevron" {
			d.glyph("chevron", "", "link__chevron")
		}
	})
}

func (d *drawer) card(n map[string]any) error {
	action, interactive := n["action"].(map[string]any)
	tone, toned := str(n, "tone")
	d.raw(`<div class="` + classes("card", when(toned, "card--tone tone-"+tone), when(interactive, "card--interactive")) + `">`)
	if image, ok := n["image"].(map[string]any); ok {
		d.raw(`<img class="card__image"`)
		d.attr("src", strOr(image, "src", ""))
		d.attr("alt", strOr(image, "alt", ""))
		d.intrinsic(image)
		d.raw(` decoding="async">`)
	}
	contentID := d.newID()
	d.raw(`<div class="card__body"`)
	d.attr("id", contentID)
	d.raw(`>`)
	if err := d.nodes(n, "children"); err != nil {
		return err
	}
	d.raw(`</div>`)
	if interactive {
		options := actionOptions{className: classes("card__action")}
		if label, ok := str(n, "actionLabel"); ok {
			options.label = &label
		} else {
			options.labelledBy = contentID
		}
		if err := d.actionElement(action, options, func() { d.glyph("chevron", "", "") }); err != nil {
			return err
		}
	}
	d.raw(`</div>`)
	return nil
}

func (d *drawer) list(n map[string]any) error {
	tag := "ul"
	if isTrue(n, "ordered") {
		tag = "ol"
	}
	d.raw(`<` + tag + ` class="` + classes("list", when(isTrue(n, "divided"), "list--divided")) + `"`)
	if label, ok := str(n, "label"); ok {
		d.attr("aria-label", label)
	}
	d.raw(`>`)
	kids, err := children(n, "children")
	if err != nil {
		return err
	}
	for _, kid := range kids {
		// As the renderer's List: a line of text is padded off the
		// panel's edges (list items, links and cards pad themselves).
		kind, _ := str(kid, "type")
		d.raw(`<li class="` + classes("list__entry", when(kind == "text", "list__entry--padded")) + `">`)
		if err := d.node(kid); err != nil {
			return err
		}
		d.raw(`</li>`)
	}
	d.raw(`</` + tag + `>`)
	return nil
}

func (d *drawer) divider(map[string]any) error {
	d.raw(`<hr class="divider">`)
	return nil
}

func (d *drawer) badge(n map[string]any) error {
	d.raw(`<span class="` + classes("badge", "tone-"+strOr(n, "tone", "neutral")) + `">`)
	d.text(strOr(n, "label", ""))
	d.raw(`</span>`)
	return nil
}

func (d *drawer) levelMeter(n map[string]any) error {
	number, ok := n["level"].(json.Number)
	if !ok {
		return errUnsupported
	}
	level, err := strconv.Atoi(number.String())
	if err != nil {
		return errUnsupported
	}
	valueLabel, hasValue := str(n, "valueLabel")
	status, hasStatus := str(n, "status")
	var parts []string
	for _, part := range []string{valueLabel, status} {
		if part != "" {
			parts = append(parts, part)
		}
	}
	labelID := d.newID()
	d.raw(`<div class="level-meter"><div class="level-meter__head"><span`)
	d.attr("id", labelID)
	d.raw(` class="level-meter__label">`)
	d.text(strOr(n, "label", ""))
	d.raw(`</span>`)
	if hasValue {
		d.textElement("span", "level-meter__value", valueLabel)
	}
	d.raw(`</div><div role="meter"`)
	d.attr("aria-labelledby", labelID)
	d.raw(` aria-valuemin="0" aria-valuemax="5" aria-valuenow="` + strconv.Itoa(level) + `"`)
	if len(parts) > 0 {
		d.attr("aria-valuetext", strings.Join(parts, ", "))
	}
	d.raw(` class="level-meter__cells level-` + strconv.Itoa(level) + `">`)
	for cell := 1; cell <= 5; cell++ {
		d.raw(`<span class="` + classes("level-meter__cell", when(cell <= level, "is-filled")) + `"></span>`)
	}
	d.raw(`</div>`)
	if hasStatus {
		d.raw(`<span class="level-meter__status level-text-` + strconv.Itoa(level) + `">`)
		d.text(status)
		d.raw(`</span>`)
	}
	d.raw(`</div>`)
	return nil
}

func (d *drawer) formNode(n map[string]any) error {
	id, ok := str(n, "id")
	if !ok || d.form != "" {
		return errUnsupported
	}
	d.form = id
	defer func() { d.form = "" }()
	// method="post": should the browser send it before the app has loaded
	// (renderer/src/runtime/prerendered.ts holds it), the fields go in a body,
	// never into an address.
	d.raw(`<form class="form" method="post" novalidate="">`)
	if err := d.nodes(n, "children"); err != nil {
		return err
	}
	d.raw(`</form>`)
	return nil
}

// formError draws nothing: a form has no error before anything is sent.
func (d *drawer) formError(map[string]any) error { return nil }

func (d *drawer) textInput(n map[string]any) error {
	kind := strOr(n, "kind", "text")
	switch kind {
	case "text", "email", "password", "search", "tel", "url", "number":
	default:
		return errUnsupported
	}
	bind := strOr(n, "bind", "")
	value, ok := d.bound(bind)
	if !ok {
		return errUnsupported
	}
	inputID := d.newID()
	d.raw(`<div class="field"><label class="field__label"`)
	d.attr("for", inputID)
	d.raw(`>`)
	d.text(strOr(n, "label", ""))
	d.raw(`</label><div class="field__control"><input`)
	d.attr("id", inputID)
	d.attr("name", strOr(n, "id", ""))
	// What the reader types before the app has loaded is carried over by
	// its bind (renderer/src/runtime/prerendered.ts).
	d.attr("data-bind", bind)
	d.raw(` class="field__input"`)
	d.attr("type", kind)
	if placeholder, ok := str(n, "placeholder"); ok {
		d.attr("placeholder", placeholder)
	}
	if autocomplete, ok := str(n, "autocomplete"); ok {
		d.attr("autocomplete", autocomplete)
	}
	if isTrue(n, "disabled") {
		d.raw(` disabled=""`)
	}
	if kind != "text" {
		d.raw(` spellcheck="false" autocapitalize="none"`)
	}
	d.attr("value", value)
	d.raw(`>`)
	if kind == "password" {
		d.raw(`<button type="button" class="icon-button field__reveal"`)
		d.attr("aria-label", d.word("showPassword"))
		d.raw(` aria-pressed="false">`)
		d.glyph("eye", "", "")
		d.raw(`</button>`)
	}
	d.raw(`</div></div>`)
	return nil
}

// bound reads the state at an input's bind pointer as its text, as
// nodes/field-parts.tsx's asText does: a string as it is, a boolean or a
// number written out, anything else (nothing, null, an object) as "". ok is
// false for a bind that is not a pointer and for a number Go cannot be sure
// to write as JavaScript's String does (a fraction, an exponent, an integer
// past 2^53); the renderer then draws the screen.
func (d *drawer) bound(pointer string) (string, bool) {
	if pointer != "" && !strings.HasPrefix(pointer, "/") {
		return "", false
	}
	at := d.state
	if pointer != "" {
		for _, token := range strings.Split(pointer[1:], "/") {
			token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
			object, ok := at.(map[string]any)
			if !ok {
				return "", true
			}
			at = object[token]
		}
	}
	switch v := at.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		// An integer JavaScript holds exactly is written alike (-0 as "0").
		i, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil || i > 1<<53 || i < -(1<<53) {
			return "", false
		}
		return strconv.FormatInt(i, 10), true
	default:
		return "", true
	}
}
