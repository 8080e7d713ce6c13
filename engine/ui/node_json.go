// This file mirrors the Node and Action structs field by field, in their
// order: a field added there is added here too.
// TestFastEncodingMatchesEncodingJSON fails when the two disagree.

package ui

import "strconv"

func (n *Node) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, '{')
	first := true
	if n.Type != "" {
		b = appendKey(b, "type", &first)
		b = appendString(b, n.Type)
	}
	if n.ID != "" {
		b = appendKey(b, "id", &first)
		b = appendString(b, n.ID)
	}
	if n.Visible != nil {
		b = appendKey(b, "visible", &first)
		if b, err = appendMarshal(b, n.Visible); err != nil {
			return nil, err
		}
	}
	if n.Fallback != nil {
		b = appendKey(b, "fallback", &first)
		if b, err = n.Fallback.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Title != "" {
		b = appendKey(b, "title", &first)
		b = appendString(b, n.Title)
	}
	if n.Subtitle != "" {
		b = appendKey(b, "subtitle", &first)
		b = appendString(b, n.Subtitle)
	}
	if n.Text != "" {
		b = appendKey(b, "text", &first)
		b = appendString(b, n.Text)
	}
	if n.Label != "" {
		b = appendKey(b, "label", &first)
		b = appendString(b, n.Label)
	}
	if n.Layout != "" {
		b = appendKey(b, "layout", &first)
		b = appendString(b, n.Layout)
	}
	if n.Header != nil {
		b = appendKey(b, "header", &first)
		if b, err = n.Header.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Children != nil {
		b = appendKey(b, "children", &first)
		b = append(b, '[')
		for i, c := range n.Children {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = c.appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if n.Footer != nil {
		b = appendKey(b, "footer", &first)
		if b, err = n.Footer.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.OnLoad != nil {
		b = appendKey(b, "onLoad", &first)
		if b, err = n.OnLoad.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Leading != nil {
		b = appendKey(b, "leading", &first)
		if b, err = n.Leading.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Trailing != nil {
		b = appendKey(b, "trailing", &first)
		if b, err = n.Trailing.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Back != nil {
		b = appendKey(b, "back", &first)
		if b, err = n.Back.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.BackLabel != "" {
		b = appendKey(b, "backLabel", &first)
		b = appendString(b, n.BackLabel)
	}
	if n.Logo != nil {
		b = appendKey(b, "logo", &first)
		if b, err = appendMarshal(b, n.Logo); err != nil {
			return nil, err
		}
	}
	if n.Menu != "" {
		b = appendKey(b, "menu", &first)
		b = appendString(b, n.Menu)
	}
	if n.MenuLabel != "" {
		b = appendKey(b, "menuLabel", &first)
		b = appendString(b, n.MenuLabel)
	}
	if n.ElevateOnScroll {
		b = appendKey(b, "elevateOnScroll", &first)
		b = append(b, "true"...)
	}
	if n.Gap != "" {
		b = appendKey(b, "gap", &first)
		b = appendString(b, n.Gap)
	}
	if n.Align != "" {
		b = appendKey(b, "align", &first)
		b = appendString(b, n.Align)
	}
	if n.Justify != "" {
		b = appendKey(b, "justify", &first)
		b = appendString(b, n.Justify)
	}
	if n.Wrap {
		b = appendKey(b, "wrap", &first)
		b = append(b, "true"...)
	}
	if n.Padded {
		b = appendKey(b, "padded", &first)
		b = append(b, "true"...)
	}
	if n.Style != "" {
		b = appendKey(b, "style", &first)
		b = appendString(b, n.Style)
	}
	if n.Tone != "" {
		b = appendKey(b, "tone", &first)
		b = appendString(b, n.Tone)
	}
	if n.Live != "" {
		b = appendKey(b, "live", &first)
		b = appendString(b, n.Live)
	}
	if n.Blocks != nil {
		b = appendKey(b, "blocks", &first)
		if b, err = appendMarshal(b, n.Blocks); err != nil {
			return nil, err
		}
	}
	if n.Src != "" {
		b = appendKey(b, "src", &first)
		b = appendString(b, n.Src)
	}
	if n.Alt != nil {
		b = appendKey(b, "alt", &first)
		if b, err = appendMarshal(b, n.Alt); err != nil {
			return nil, err
		}
	}
	if n.Aspect != "" {
		b = appendKey(b, "aspect", &first)
		b = appendString(b, n.Aspect)
	}
	if n.Fit != "" {
		b = appendKey(b, "fit", &first)
		b = appendString(b, n.Fit)
	}
	if n.Size != "" {
		b = appendKey(b, "size", &first)
		b = appendString(b, n.Size)
	}
	if n.Name != "" {
		b = appendKey(b, "name", &first)
		b = appendString(b, n.Name)
	}
	if n.Image != nil {
		b = appendKey(b, "image", &first)
		if b, err = appendMarshal(b, n.Image); err != nil {
			return nil, err
		}
	}
	if n.Action != nil {
		b = appendKey(b, "action", &first)
		if b, err = n.Action.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.ActionLabel != "" {
		b = appendKey(b, "actionLabel", &first)
		b = appendString(b, n.ActionLabel)
	}
	if n.Emphasis != "" {
		b = appendKey(b, "emphasis", &first)
		b = appendString(b, n.Emphasis)
	}
	if n.Icon != "" {
		b = appendKey(b, "icon", &first)
		b = appendString(b, n.Icon)
	}
	if n.DisabledWhen != nil {
		b = appendKey(b, "disabledWhen", &first)
		if b, err = appendMarshal(b, n.DisabledWhen); err != nil {
			return nil, err
		}
	}
	if n.Divided {
		b = appendKey(b, "divided", &first)
		b = append(b, "true"...)
	}
	if n.Ordered {
		b = appendKey(b, "ordered", &first)
		b = append(b, "true"...)
	}
	if n.Value != nil {
		b = appendKey(b, "value", &first)
		if b, err = appendMarshal(b, n.Value); err != nil {
			return nil, err
		}
	}
	if n.Caption != "" {
		b = appendKey(b, "caption", &first)
		b = appendString(b, n.Caption)
	}
	if n.PendingLabel != "" {
		b = appendKey(b, "pendingLabel", &first)
		b = appendString(b, n.PendingLabel)
	}
	if n.Level != nil {
		b = appendKey(b, "level", &first)
		b = strconv.AppendInt(b, int64(*n.Level), 10)
	}
	if n.ValueLabel != "" {
		b = appendKey(b, "valueLabel", &first)
		b = appendString(b, n.ValueLabel)
	}
	if n.Status != "" {
		b = appendKey(b, "status", &first)
		b = appendString(b, n.Status)
	}
	if n.Posts != nil {
		b = appendKey(b, "posts", &first)
		if b, err = appendMarshal(b, n.Posts); err != nil {
			return nil, err
		}
	}
	if n.EndsAt != "" {
		b = appendKey(b, "endsAt", &first)
		b = appendString(b, n.EndsAt)
	}
	if n.OnExpire != nil {
		b = appendKey(b, "onExpire", &first)
		if b, err = n.OnExpire.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Fullscreen {
		b = appendKey(b, "fullscreen", &first)
		b = append(b, "true"...)
	}
	if n.Sticky != "" {
		b = appendKey(b, "sticky", &first)
		b = appendString(b, n.Sticky)
	}
	if n.Submit != nil {
		b = appendKey(b, "submit", &first)
		if b, err = n.Submit.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if n.Form != "" {
		b = appendKey(b, "form", &first)
		b = appendString(b, n.Form)
	}
	if n.Bind != "" {
		b = appendKey(b, "bind", &first)
		b = appendString(b, n.Bind)
	}
	if n.Kind != "" {
		b = appendKey(b, "kind", &first)
		b = appendString(b, n.Kind)
	}
	if n.Placeholder != "" {
		b = appendKey(b, "placeholder", &first)
		b = appendString(b, n.Placeholder)
	}
	if n.Autocomplete != "" {
		b = appendKey(b, "autocomplete", &first)
		b = appendString(b, n.Autocomplete)
	}
	if len(n.Rules) > 0 {
		b = appendKey(b, "rules", &first)
		if b, err = appendMarshal(b, n.Rules); err != nil {
			return nil, err
		}
	}
	if n.Disabled {
		b = appendKey(b, "disabled", &first)
		b = append(b, "true"...)
	}
	if n.Rows != 0 {
		b = appendKey(b, "rows", &first)
		b = strconv.AppendInt(b, int64(n.Rows), 10)
	}
	if n.MaxLength != 0 {
		b = appendKey(b, "maxLength", &first)
		b = strconv.AppendInt(b, int64(n.MaxLength), 10)
	}
	if len(n.Options) > 0 {
		b = appendKey(b, "options", &first)
		if b, err = appendMarshal(b, n.Options); err != nil {
			return nil, err
		}
	}
	if n.Max != 0 {
		b = appendKey(b, "max", &first)
		b = strconv.AppendInt(b, int64(n.Max), 10)
	}
	if n.Presentation != "" {
		b = appendKey(b, "presentation", &first)
		b = appendString(b, n.Presentation)
	}
	if n.Dismissible {
		b = appendKey(b, "dismissible", &first)
		b = append(b, "true"...)
	}
	if n.CloseLabel != "" {
		b = appendKey(b, "closeLabel", &first)
		b = appendString(b, n.CloseLabel)
	}
	if n.OnClose != nil {
		b = appendKey(b, "onClose", &first)
		if b, err = n.OnClose.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if len(n.Steps) > 0 {
		b = appendKey(b, "steps", &first)
		if b, err = appendMarshal(b, n.Steps); err != nil {
			return nil, err
		}
	}
	if n.Points != nil {
		b = appendKey(b, "points", &first)
		if b, err = appendMarshal(b, n.Points); err != nil {
			return nil, err
		}
	}
	if n.Accept != "" {
		b = appendKey(b, "accept", &first)
		b = appendString(b, n.Accept)
	}
	if n.Help != "" {
		b = appendKey(b, "help", &first)
		b = appendString(b, n.Help)
	}
	if n.MaxBytes != 0 {
		b = appendKey(b, "maxBytes", &first)
		b = strconv.AppendInt(b, n.MaxBytes, 10)
	}
	if n.RequiredMessage != "" {
		b = appendKey(b, "requiredMessage", &first)
		b = appendString(b, n.RequiredMessage)
	}
	if n.TooLargeMessage != "" {
		b = appendKey(b, "tooLargeMessage", &first)
		b = appendString(b, n.TooLargeMessage)
	}
	return append(b, '}'), nil
}

func (a *Action) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, '{')
	first := true
	if a.Type != "" {
		b = appendKey(b, "type", &first)
		b = appendString(b, a.Type)
	}
	if a.To != "" {
		b = appendKey(b, "to", &first)
		b = appendString(b, a.To)
	}
	if a.Fallback != "" {
		b = appendKey(b, "fallback", &first)
		b = appendString(b, a.Fallback)
	}
	if a.URL != "" {
		b = appendKey(b, "url", &first)
		b = appendString(b, a.URL)
	}
	if a.NewWindow {
		b = appendKey(b, "newWindow", &first)
		b = append(b, "true"...)
	}
	if a.Name != "" {
		b = appendKey(b, "action", &first)
		b = appendString(b, a.Name)
	}
	if a.Form != "" {
		b = appendKey(b, "form", &first)
		b = appendString(b, a.Form)
	}
	if len(a.Include) > 0 {
		b = appendKey(b, "include", &first)
		if b, err = appendMarshal(b, a.Include); err != nil {
			return nil, err
		}
	}
	if a.Validate != "" {
		b = appendKey(b, "validate", &first)
		b = appendString(b, a.Validate)
	}
	if a.ID != "" {
		b = appendKey(b, "id", &first)
		b = appendString(b, a.ID)
	}
	if a.Path != "" {
		b = appendKey(b, "path", &first)
		b = appendString(b, a.Path)
	}
	if a.Value != nil {
		b = appendKey(b, "value", &first)
		if b, err = appendMarshal(b, a.Value); err != nil {
			return nil, err
		}
	}
	if a.MS != nil {
		b = appendKey(b, "ms", &first)
		b = strconv.AppendInt(b, int64(*a.MS), 10)
	}
	if a.Then != nil {
		b = appendKey(b, "then", &first)
		if b, err = a.Then.appendJSON(b); err != nil {
			return nil, err
		}
	}
	if a.Filename != "" {
		b = appendKey(b, "filename", &first)
		b = appendString(b, a.Filename)
	}
	if a.Event != "" {
		b = appendKey(b, "event", &first)
		b = appendString(b, a.Event)
	}
	if a.Props != nil {
		b = appendKey(b, "props", &first)
		if b, err = appendMarshal(b, a.Props); err != nil {
			return nil, err
		}
	}
	if len(a.Actions) > 0 {
		b = appendKey(b, "actions", &first)
		b = append(b, '[')
		for i, c := range a.Actions {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = c.appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if a.Input != "" {
		b = appendKey(b, "input", &first)
		b = appendString(b, a.Input)
	}
	return append(b, '}'), nil
}
