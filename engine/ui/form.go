package ui

import "strings"

// Walk calls fn on n and on every node beneath it, parents first, through the
// child slots of each node's type as schema.json defines them (eachChild,
// generated into contract_gen.go like the renderer's NODE_SLOTS). fn
// returning false skips that node's subtree.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	n.eachChild(func(c *Node) { c.Walk(fn) })
}

// FormInput is one input of a form as the server checks it: its id (the key
// of its value in an action's values), the state pointer it binds, its rules,
// and whether it is shown only under a condition.
type FormInput struct {
	ID    string
	Bind  string
	Rules []Rule
	// Conditional is set when the input or a node between it and its form
	// has a visible condition. The renderer sends only visible inputs, so an
	// absent conditional input was hidden and its rules do not apply.
	Conditional bool
}

// FindForm returns the inputs of the first form among roots whose submit
// action posts action, and whether there is one.
func FindForm(action string, roots ...*Node) ([]FormInput, bool) {
	var inputs []FormInput
	found := false
	for _, root := range roots {
		root.Walk(func(n *Node) bool {
			if found {
				return false
			}
			if n.Type != NodeTypeForm || n.Submit == nil || n.Submit.Type != ActionTypeSubmit || n.Submit.Name != action {
				return true
			}
			found = true
			inputs = formInputs(n)
			return false
		})
		if found {
			break
		}
	}
	return inputs, found
}

// formInputs lists the inputs beneath form that carry an id, in tree order.
func formInputs(form *Node) []FormInput {
	var out []FormInput
	var visit func(n *Node, conditional bool)
	visit = func(n *Node, conditional bool) {
		conditional = conditional || n.Visible != nil
		if n != form && n.ID != "" && n.Bind != "" {
			out = append(out, FormInput{ID: n.ID, Bind: n.Bind, Rules: n.Rules, Conditional: conditional})
		}
		n.Walk(func(c *Node) bool {
			if c == n {
				return true
			}
			visit(c, conditional)
			return false
		})
	}
	visit(form, false)
	return out
}

// CheckForm runs each input's rules against the submitted values as the
// renderer does before a submit, and returns the first failing message of
// each input that fails, keyed by input id (empty when all pass). state is
// the screen's initial state; the submitted values are written into a copy
// of it at their inputs' bind pointers (and include pointers, keyed by the
// pointer itself, at that pointer), so equals rules and when conditions read
// what the person submitted, as they do in the renderer's store.
func CheckForm(inputs []FormInput, values map[string]any, state map[string]any) map[string]string {
	doc := deepCopy(state)
	for key, v := range values {
		if strings.HasPrefix(key, "/") {
			setPointer(doc, key, v)
		}
	}
	for _, in := range inputs {
		if v, ok := values[in.ID]; ok {
			setPointer(doc, in.Bind, v)
		}
	}
	fields := map[string]string{}
	for _, in := range inputs {
		v, ok := values[in.ID]
		if !ok && in.Conditional {
			continue
		}
		if msg := CheckRules(in.Rules, v, doc); msg != "" {
			fields[in.ID] = msg
		}
	}
	return fields
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}

// setPointer writes v at a JSON Pointer of doc, making objects on the way;
// a pointer through anything but objects is left alone.
func setPointer(doc map[string]any, pointer string, v any) {
	if !strings.HasPrefix(pointer, "/") {
		return
	}
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	cur := doc
	for i, raw := range parts {
		key := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		if i == len(parts)-1 {
			cur[key] = v
			return
		}
		next, ok := cur[key].(map[string]any)
		if !ok {
			if cur[key] != nil {
				return
			}
			next = map[string]any{}
			cur[key] = next
		}
		cur = next
	}
}
