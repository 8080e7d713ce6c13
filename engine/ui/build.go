package ui

// The builders below keep screen functions short and readable. Options that
// are rare are set on the returned node directly.

// Screen is the root of every envelope.
func Screen(id, title string, children ...*Node) *Node {
	return &Node{Type: NodeTypeScreen, ID: id, Title: title, Children: nonNil(children)}
}

// Stack lays children out vertically with the given gap.
func Stack(gap string, children ...*Node) *Node {
	return &Node{Type: NodeTypeStack, Gap: gap, Children: nonNil(children)}
}

// Row lays children out horizontally.
func Row(gap string, children ...*Node) *Node {
	return &Node{Type: NodeTypeRow, Gap: gap, Children: nonNil(children)}
}

// Split lays children out side by side on a wide screen and stacked on a
// phone; the first column takes the room the others leave.
func Split(gap string, children ...*Node) *Node {
	return &Node{Type: NodeTypeSplit, Gap: gap, Children: nonNil(children)}
}

// Preview shows, in a phone-width frame, the tree at the state's bind
// (children until the server sends one) and runs refresh whenever the state
// at watch changes, so the server can compose the tree again.
func Preview(label, bind, watch string, refresh *Action, children ...*Node) *Node {
	return &Node{Type: NodeTypePreview, Label: label, Bind: bind, Watch: watch, Action: refresh, Children: nonNil(children)}
}

// ImageChoice is a choice among pictures bound to /form/<bind>; id may
// differ from bind when another input edits the same value.
func ImageChoice(id, bind, label string, options ...Option) *Node {
	return &Node{Type: NodeTypeImageChoice, ID: id, Bind: "/form/" + bind, Label: label, Options: options}
}

// Text is plain text in one of the text styles (title, heading, body, …).
func Text(style, text string) *Node { return &Node{Type: NodeTypeText, Style: style, Text: text} }

// Image shows a picture; alt "" marks it decorative.
func Image(src, alt string) *Node { return &Node{Type: NodeTypeImage, Src: src, Alt: &alt} }

// ImageOf is an image node of a reference, with its own size when the
// reference states it.
func ImageOf(ref ImageRef) *Node {
	n := Image(ref.Src, ref.Alt)
	n.Intrinsic = ref.Intrinsic
	return n
}

// Icon shows one of the renderer's icons.
func Icon(name string) *Node { return &Node{Type: NodeTypeIcon, Name: name} }

// Button runs action; emphasis is primary, secondary or tertiary.
func Button(label, emphasis string, action *Action) *Node {
	return &Node{Type: NodeTypeButton, Label: label, Emphasis: emphasis, Action: action}
}

// Link is an inline text link.
func Link(label string, action *Action) *Node {
	return &Node{Type: NodeTypeLink, Label: label, Action: action}
}

// Card is a surface; with an action the whole card is tappable.
func Card(action *Action, children ...*Node) *Node {
	return &Node{Type: NodeTypeCard, Action: action, Children: nonNil(children)}
}

// List is a vertical list of nodes, optionally with dividers between them.
func List(divided bool, children ...*Node) *Node {
	return &Node{Type: NodeTypeList, Divided: divided, Children: nonNil(children)}
}

// Divider is a horizontal rule.
func Divider() *Node { return &Node{Type: NodeTypeDivider} }

// Badge is a short label.
func Badge(label, tone string) *Node { return &Node{Type: NodeTypeBadge, Label: label, Tone: tone} }

// Loader is a spinner with an accessible label; fullscreen covers the page.
func Loader(label string, fullscreen bool) *Node {
	return &Node{Type: NodeTypeLoader, Label: label, Fullscreen: fullscreen}
}

// Form scopes inputs for validation and submission.
func Form(id string, submit *Action, children ...*Node) *Node {
	return &Node{Type: NodeTypeForm, ID: id, Submit: submit, Children: nonNil(children)}
}

// FormError is where a form's server error line appears.
func FormError(form string) *Node { return &Node{Type: NodeTypeFormError, Form: form} }

// TextInput is a single-line input bound to a state path.
func TextInput(id, kind, label, placeholder string, rules ...Rule) *Node {
	return &Node{Type: NodeTypeTextInput, ID: id, Bind: "/form/" + id, Kind: kind, Label: label,
		Placeholder: placeholder, Rules: rules}
}

// Dialog is an overlay: a modal, a full-screen dialog or a drawer.
func Dialog(id, presentation, title string, children ...*Node) *Node {
	return &Node{Type: NodeTypeDialog, ID: id, Presentation: presentation, Title: title,
		Children: nonNil(children), Dismissible: true}
}

// Required is the rule that a value is present.
func Required(message string) Rule { return Rule{Kind: RuleKindRequired, Message: message} }

// Email is the rule that a value looks like an email address.
func Email(message string) Rule { return Rule{Kind: RuleKindEmail, Message: message} }

// MinLength is the rule that a value has at least n characters.
func MinLength(n int, message string) Rule {
	return Rule{Kind: RuleKindMinLength, Value: n, Message: message}
}

// MaxLength is the rule that a value has at most n characters.
func MaxLength(n int, message string) Rule {
	return Rule{Kind: RuleKindMaxLength, Value: n, Message: message}
}

// nonNil drops nil children so that screens can write optional parts inline
// (`ui.If(cond, node)`) without leaving holes in the tree.
func nonNil(nodes []*Node) []*Node {
	out := nodes[:0:0]
	for _, n := range nodes {
		if n != nil {
			out = append(out, n)
		}
	}
	if out == nil {
		out = []*Node{}
	}
	return out
}

// If returns n when cond holds and nil otherwise; builders drop nil children.
func If(cond bool, n *Node) *Node {
	if cond {
		return n
	}
	return nil
}
