package ui

import "encoding/json"

// Condition is the small predicate language of visible, disabledWhen and a
// rule's when: a literal, a state path, not/and/or, comparisons and in. Only
// one of its forms is set; MarshalJSON writes that form.
type Condition struct {
	Literal *bool
	Path    string
	Not     *Condition
	And     []*Condition
	Or      []*Condition
	// Op is one of eq, neq, gt, gte, lt, lte, in, with its two operands.
	Op       string
	Operands [2]Operand
}

// Operand is a literal value or a reference to a state path.
type Operand struct {
	Path    string
	Literal any
}

// Always is the literal condition true or false.
func Always(v bool) *Condition { return &Condition{Literal: &v} }

// Truthy is true when the value at path is truthy.
func Truthy(path string) *Condition { return &Condition{Path: path} }

// Not negates c.
func Not(c *Condition) *Condition { return &Condition{Not: c} }

// And is true when all of cs are.
func And(cs ...*Condition) *Condition { return &Condition{And: cs} }

// Or is true when any of cs is.
func Or(cs ...*Condition) *Condition { return &Condition{Or: cs} }

// Compare builds a comparison (eq, neq, gt, gte, lt, lte) or an in-test.
func Compare(op string, a, b Operand) *Condition {
	return &Condition{Op: op, Operands: [2]Operand{a, b}}
}

// PathOperand refers to the value at a state path.
func PathOperand(path string) Operand { return Operand{Path: path} }

// LiteralOperand is a constant.
func LiteralOperand(v any) Operand { return Operand{Literal: v} }

// MarshalJSON writes the one form that is set.
func (c Condition) MarshalJSON() ([]byte, error) {
	switch {
	case c.Literal != nil:
		return json.Marshal(*c.Literal)
	case c.Path != "":
		return json.Marshal(map[string]string{"path": c.Path})
	case c.Not != nil:
		return json.Marshal(map[string]*Condition{"not": c.Not})
	case c.And != nil:
		return json.Marshal(map[string][]*Condition{"and": c.And})
	case c.Or != nil:
		return json.Marshal(map[string][]*Condition{"or": c.Or})
	default:
		return json.Marshal(map[string][2]Operand{c.Op: c.Operands})
	}
}

// MarshalJSON writes {"path": ...} or the literal.
func (o Operand) MarshalJSON() ([]byte, error) {
	if o.Path != "" {
		return json.Marshal(map[string]string{"path": o.Path})
	}
	return json.Marshal(o.Literal)
}
