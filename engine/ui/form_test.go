package ui

import (
	"reflect"
	"slices"
	"testing"
)

func TestFindFormAndCheckForm(t *testing.T) {
	hidden := TextInput("code", "text", "Code", "", Required("Enter the code"))
	hidden.Visible = &Condition{Path: "/form/twoStep"}
	confirm := TextInput("confirm", "password", "Again", "", Rule{Kind: "equals", Path: "/form/password", Message: "Passwords differ"})
	screen := Screen("s", "S", Stack("md",
		Form("other", Submit("other.action", "other"), TextInput("x", "text", "X", "", Required("X!"))),
		Form("f", Submit("the.action", "f"),
			TextInput("email", "email", "Email", "", Email("Bad email")),
			TextInput("password", "password", "Password", "", MinLength(6, "Too short")),
			confirm, hidden),
	))
	if _, ok := FindForm("missing.action", screen); ok {
		t.Fatal("found a form for an action no form posts")
	}
	inputs, ok := FindForm("the.action", nil, screen)
	if !ok {
		t.Fatal("the form was not found")
	}
	var ids []string
	for _, in := range inputs {
		ids = append(ids, in.ID)
	}
	if want := []string{"email", "password", "confirm", "code"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("inputs %v, want %v", ids, want)
	}
	state := map[string]any{"form": map[string]any{"email": "", "password": ""}}
	got := CheckForm(inputs, map[string]any{"email": "a@b", "password": "12345678", "confirm": "1234567"}, state)
	want := map[string]string{"email": "Bad email", "confirm": "Passwords differ"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CheckForm = %v, want %v (a hidden input absent from values is not checked)", got, want)
	}
	got = CheckForm(inputs, map[string]any{"email": "a@b.co", "password": "12345678", "confirm": "12345678", "code": " "}, state)
	if want := map[string]string{"code": "Enter the code"}; !reflect.DeepEqual(got, want) {
		t.Errorf("CheckForm = %v, want %v (a sent conditional input is checked)", got, want)
	}
	if state["form"].(map[string]any)["password"] != "" {
		t.Error("CheckForm wrote into the screen's state")
	}
}

// Walk follows every child slot schema.json gives a node type (fallback,
// header, children, footer, leading, trailing, the children of steps), in
// schema order, and skips a subtree when fn says so.
func TestWalkFollowsEverySlot(t *testing.T) {
	t.Parallel()
	named := func(n *Node, id string) *Node { n.ID = id; return n }
	item := named(&Node{Type: NodeTypeListItem, Leading: named(Icon("star"), "leading"),
		Trailing: named(Badge("new", "info"), "trailing")}, "item")
	steps := named(&Node{Type: NodeTypeSteps, Steps: []Step{{ID: "one", Children: []*Node{named(Text("body", "in a step"), "step")}}}}, "steps")
	root := named(Screen("", "Title", item, steps), "screen")
	root.Fallback = named(Text("body", "fallback"), "fallback")
	root.Header = named(&Node{Type: NodeTypeHeader}, "header")
	root.Footer = named(&Node{Type: NodeTypeFooter, Children: []*Node{named(Link("Terms", Navigate("/terms")), "link")}}, "footer")

	tests := []struct {
		name string
		skip string
		want []string
	}{
		{"every node", "", []string{"screen", "fallback", "header", "item", "leading", "trailing", "steps", "step", "footer", "link"}},
		{"a subtree skipped", "steps", []string{"screen", "fallback", "header", "item", "leading", "trailing", "steps", "footer", "link"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			root.Walk(func(n *Node) bool {
				got = append(got, n.ID)
				return n.ID != tt.skip
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("Walk visited %v, want %v", got, tt.want)
			}
		})
	}
}
