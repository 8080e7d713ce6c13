package engine

import (
	"maps"
	"slices"
	"strings"
)

// Problem is what is wrong with one input of a form, as a domain package
// found it: Code is a copy key (the brand's words for it) and Args fill that
// copy's {placeholders}. The domain decides what is valid; the words are the
// brand's copy, so a rule a screen declares and the same rule checked in the
// domain read alike.
type Problem struct {
	Code string
	Args map[string]string
}

// Problems maps an input id to what is wrong with it.
type Problems map[string]Problem

// InvalidError carries a form's problems inside an *Error of CodeInvalid
// (Invalid); the handler words them.
type InvalidError struct {
	What     string // what was checked, for the log: "content", "experiment"
	Problems Problems
}

func (e *InvalidError) Error() string {
	parts := make([]string, 0, len(e.Problems))
	for _, id := range slices.Sorted(maps.Keys(e.Problems)) {
		parts = append(parts, id+": "+e.Problems[id].Code)
	}
	return "invalid " + e.What + ": " + strings.Join(parts, ", ")
}

// Invalid is the error of what's problems: nil for none.
func Invalid(what string, problems Problems) error {
	if len(problems) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Err: &InvalidError{What: what, Problems: problems}}
}
