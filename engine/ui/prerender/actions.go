package prerender

import "strings"

// glyphPaths is nodes/icon.tsx's PATHS: the icon set as SVG path data.
// The goldens' comparison with the renderer's output keeps the two equal.
var glyphPaths = map[string]string{
	"back":     "M15 18l-6-6 6-6",
	"menu":     "M4 7h16M4 12h16M4 17h16",
	"close":    "M6 6l12 12M18 6L6 18",
	"chevron":  "M9 6l6 6-6 6",
	"clock":    "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0zM12 7v5l3 2",
	"lock":     "M7 11h10a2 2 0 0 1 2 2v6a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2v-6a2 2 0 0 1 2-2zM8 11V7a4 4 0 0 1 8 0v4",
	"check":    "M5 12l5 5L20 7",
	"alert":    "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0zM12 8v5M12 16h.01",
	"star":     "M12 3l2.8 5.7 6.2.9-4.5 4.4 1.1 6.2L12 17.3l-5.6 2.9 1.1-6.2L3 9.6l6.2-.9z",
	"logout":   "M9 20H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h3M16 17l5-5-5-5M21 12H9",
	"mail":     "M5 5h14a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zM3 7l9 6 9-6",
	"shield":   "M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z",
	"news":     "M4 5h13v14H6a2 2 0 0 1-2-2zM17 9h3v8a2 2 0 0 1-2 2M8 9h5M8 13h5",
	"course":   "M4 19.5A2.5 2.5 0 0 1 6.5 17H20V3H6.5A2.5 2.5 0 0 0 4 5.5zM4 19.5A2.5 2.5 0 0 0 6.5 22H20v-5",
	"insights": "M4 20V11M10 20V5M16 20v-6M21 20H3",
	"eye":      "M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12zM15 12a3 3 0 1 1-6 0 3 3 0 0 1 6 0z",
	"search":   "M18 11a7 7 0 1 1-14 0 7 7 0 0 1 14 0zM20 20l-4-4",
}

// glyph is nodes/icon.tsx's Glyph: decorative unless labelled.
func (d *drawer) glyph(name, label, className string) {
	d.raw(`<svg class="` + classes("icon", className) + `" viewBox="0 0 24 24" fill="none" stroke="currentColor"` +
		` stroke-width="2" stroke-linecap="round" stroke-linejoin="round" focusable="false"`)
	if label != "" {
		d.raw(` role="img"`)
		d.attr("aria-label", label)
	} else {
		d.raw(` aria-hidden="true"`)
	}
	d.raw(`><path d="` + glyphPaths[name] + `"></path></svg>`)
}

type actionOptions struct {
	// className is written as it is: callers build it with classes, which
	// escapes it.
	className string
	// label is the aria-label (nil: none).
	label      *string
	labelledBy string
	// submit makes a button the form's submit button.
	submit bool
}

// actionElement is nodes/action-element.tsx on its first render (nothing is
// busy yet): a link when the action navigates, else a button.
func (d *drawer) actionElement(action map[string]any, o actionOptions, content func()) error {
	if _, ok := str(action, "type"); !ok {
		return errUnsupported
	}
	if target, ok := linkFor(action); ok {
		d.raw(`<a class="` + o.className + `"`)
		d.attr("href", target.href)
		if target.newWindow {
			d.raw(` target="_blank" rel="noopener noreferrer"`)
		}
		if target.download != nil {
			d.attr("download", *target.download)
		}
		if target.native {
			d.raw(` data-router="off"`)
		}
		d.labels(o)
		d.raw(`>`)
		content()
		d.raw(`</a>`)
		return nil
	}
	kind := "button"
	if o.submit {
		kind = "submit"
	}
	d.raw(`<button type="` + kind + `" class="` + o.className + `"`)
	d.labels(o)
	d.raw(`>`)
	content()
	d.raw(`</button>`)
	return nil
}

func (d *drawer) labels(o actionOptions) {
	if o.label != nil {
		d.attr("aria-label", *o.label)
	}
	if o.labelledBy != "" {
		d.attr("aria-labelledby", o.labelledBy)
	}
}

type linkTarget struct {
	href      string
	newWindow bool
	download  *string
	native    bool
}

// linkFor is runtime/actions.ts's linkFor: the link an action that navigates
// is drawn as.
func linkFor(action map[string]any) (linkTarget, bool) {
	switch strOr(action, "type", "") {
	case "navigate", "replace":
		to := strOr(action, "to", "")
		return linkTarget{href: to}, isLocalPath(to)
	case "open_url":
		url := strOr(action, "url", "")
		if !isOpenable(url) {
			return linkTarget{}, false
		}
		return linkTarget{href: url, newWindow: isTrue(action, "newWindow"), native: true}, true
	case "download":
		url := strOr(action, "url", "")
		filename := strOr(action, "filename", "")
		return linkTarget{href: url, download: &filename, native: true}, isLocalPath(url)
	}
	return linkTarget{}, false
}

// normaliseHref is runtime/href.ts's: the href a browser would follow when
// it is one the app allows (https, mailto, or a path on this origin).
func normaliseHref(raw string) (string, bool) {
	href := strings.TrimFunc(raw, func(r rune) bool { return r <= 0x20 })
	href = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(href)
	if href == "" || strings.ContainsAny(href, `<>"`) || strings.ContainsFunc(href, func(r rune) bool { return r <= 0x20 || r == 0x7f }) {
		return "", false
	}
	scheme, rest, hasScheme := strings.Cut(href, ":")
	if !hasScheme {
		scheme = ""
	}
	switch strings.ToLower(scheme) {
	case "https":
		rest = strings.ReplaceAll(rest, `\`, "/")
		host, ok := strings.CutPrefix(rest, "//")
		if !ok || host == "" || strings.HasPrefix(host, "/") {
			return "", false
		}
		return "https://" + host, true
	case "mailto":
		return "mailto:" + rest, true
	}
	if !strings.HasPrefix(href, "/") && !strings.HasPrefix(href, `\`) {
		return "", false
	}
	path := strings.ReplaceAll(href, `\`, "/")
	if strings.HasPrefix(path, "//") || hasEncodedSlashPrefix(path[1:]) {
		return "", false
	}
	return path, true
}

func hasEncodedSlashPrefix(rest string) bool {
	if len(rest) < 3 || rest[0] != '%' {
		return false
	}
	code := strings.ToLower(rest[1:3])
	return code == "2f" || code == "5c"
}

func isLocalPath(path string) bool {
	normal, ok := normaliseHref(path)
	return strings.HasPrefix(path, "/") && ok && normal == path
}

func isOpenable(url string) bool {
	normal, ok := normaliseHref(url)
	return ok && normal == url
}
