package ui

import (
	"reflect"
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
