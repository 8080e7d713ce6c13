package prerender

import (
	"strings"

	"glimpse/engine/ui"
)

// glyph is nodes/icon.tsx's Glyph: decorative unless labelled. The path data
// is engine/ui/icons.json, the file icon.tsx imports too.
func (d *drawer) glyph(name, label, className string) {
	d.raw(`<svg class="` + classes("icon", className) + `" viewBox="0 0 24 24" fill="none" stroke="currentColor"` +
		` stroke-width="2" stroke-linecap="round" stroke-linejoin="round" focusable="false"`)
	if label != "" {
		d.raw(` role="img"`)
		d.attr("aria-label", label)
	} else {
		d.raw(` aria-hidden="true"`)
	}
	d.raw(`><path`)
	d.attr("d", ui.IconPaths[name])
	d.raw(`></path></svg>`)
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
	case ui.ActionTypeNavigate, ui.ActionTypeReplace:
		to := strOr(action, "to", "")
		return linkTarget{href: to}, isLocalPath(to)
	case ui.ActionTypeOpenUrl:
		url := strOr(action, "url", "")
		if !isOpenable(url) {
			return linkTarget{}, false
		}
		return linkTarget{href: url, newWindow: isTrue(action, "newWindow"), native: true}, true
	case ui.ActionTypeDownload:
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
