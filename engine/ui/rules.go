package ui

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// EmailPattern is the email rule's pattern, identical in the renderer: it
// accepts what a person types as an address and rejects obvious slips.
const EmailPattern = `^[^\s@]+@[^\s@]+\.[^\s@]+$`

var emailRegexp = regexp.MustCompile(EmailPattern)

// ValidEmail reports whether s passes the email rule.
func ValidEmail(s string) bool { return emailRegexp.MatchString(s) }

// CheckRules runs rules against value, as the renderer does before a submit,
// and returns the first failing rule's message, or "" when all pass. state is
// the document that equals rules and when-conditions read from.
func CheckRules(rules []Rule, value any, state map[string]any) string {
	if failed := FailingRules(rules, value, state); len(failed) > 0 {
		return failed[0]
	}
	return ""
}

// FailingRules returns the messages of every rule value fails, in order.
// Lengths count a list's items or the code points of the value's text (a
// number or boolean as JavaScript prints it); patterns are unanchored; an
// absent value is empty text; required rejects null, blank text and an
// empty list. fixtures/rules/parity.json holds both sides to this.
func FailingRules(rules []Rule, value any, state map[string]any) []string {
	failed := []string{}
	for _, r := range rules {
		if r.When != nil && !r.When.Eval(state) {
			continue
		}
		if !ruleHolds(r, value, state) {
			failed = append(failed, r.Message)
		}
	}
	return failed
}

func ruleHolds(r Rule, value any, state map[string]any) bool {
	switch r.Kind {
	case RuleKindRequired:
		s, isString := value.(string)
		list, isList := value.([]any)
		return value != nil && (!isString || strings.TrimSpace(s) != "") && (!isList || len(list) > 0)
	case RuleKindEmail:
		return emailRegexp.MatchString(ruleText(value))
	case RuleKindMinLength:
		return ruleLength(value) >= intValue(r.Value)
	case RuleKindMaxLength:
		return ruleLength(value) <= intValue(r.Value)
	case RuleKindPattern:
		pattern, _ := r.Value.(string)
		re, err := regexp.Compile(pattern)
		return err == nil && re.MatchString(ruleText(value))
	case RuleKindEquals:
		return reflect.DeepEqual(value, Lookup(state, r.Path))
	default:
		return false
	}
}

// ruleText is a value as the rules read text, as the renderer's rules.ts
// does: a string as it is, a number or boolean as JavaScript prints it,
// anything else empty.
func ruleText(value any) string {
	switch v := value.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return jsNumber(v)
	case int:
		return strconv.Itoa(v)
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return jsNumber(f)
		}
		return v.String()
	}
	return ""
}

// jsNumber prints a number as JavaScript's String does for the values a
// form holds: integers without a decimal point, fractions in their
// shortest form, exponents from 1e21 up.
func jsNumber(f float64) string {
	if math.Abs(f) >= 1e21 {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// ruleLength is what min_length and max_length measure: a list's items, or
// the code points of the value's text.
func ruleLength(value any) int {
	if list, ok := value.([]any); ok {
		return len(list)
	}
	return utf8.RuneCountInString(ruleText(value))
}

func intValue(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// Lookup returns the value at a JSON Pointer (RFC 6901) in doc, or nil.
func Lookup(doc map[string]any, pointer string) any {
	if pointer == "" {
		return doc
	}
	var cur any = doc
	for _, raw := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		key := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// Eval evaluates the condition against state with the renderer's semantics.
func (c *Condition) Eval(state map[string]any) bool {
	switch {
	case c.Literal != nil:
		return *c.Literal
	case c.Path != "":
		return truthy(Lookup(state, c.Path))
	case c.Not != nil:
		return !c.Not.Eval(state)
	case c.And != nil:
		for _, x := range c.And {
			if !x.Eval(state) {
				return false
			}
		}
		return true
	case c.Or != nil:
		for _, x := range c.Or {
			if x.Eval(state) {
				return true
			}
		}
		return false
	}
	a, b := c.Operands[0].resolve(state), c.Operands[1].resolve(state)
	switch c.Op {
	case "eq":
		return looseEqual(a, b)
	case "neq":
		return !looseEqual(a, b)
	case "in":
		list, _ := b.([]any)
		for _, x := range list {
			if looseEqual(a, x) {
				return true
			}
		}
		return false
	}
	x, okA := number(a)
	y, okB := number(b)
	if !okA || !okB {
		return false
	}
	switch c.Op {
	case "gt":
		return x > y
	case "gte":
		return x >= y
	case "lt":
		return x < y
	case "lte":
		return x <= y
	}
	return false
}

func (o Operand) resolve(state map[string]any) any {
	if o.Path != "" {
		return Lookup(state, o.Path)
	}
	return o.Literal
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case int:
		return x != 0
	}
	return true
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func looseEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

// UnmarshalJSON reads any form of the condition grammar.
func (c *Condition) UnmarshalJSON(b []byte) error {
	var lit bool
	if err := json.Unmarshal(b, &lit); err == nil {
		c.Literal = &lit
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || len(m) != 1 {
		return fmt.Errorf("condition must be a boolean or an object with one key: %s", b)
	}
	for k, v := range m {
		switch k {
		case "path":
			return json.Unmarshal(v, &c.Path)
		case "not":
			c.Not = &Condition{}
			return json.Unmarshal(v, c.Not)
		case "and":
			return json.Unmarshal(v, &c.And)
		case "or":
			return json.Unmarshal(v, &c.Or)
		case "eq", "neq", "gt", "gte", "lt", "lte", "in":
			c.Op = k
			var ops []json.RawMessage
			if err := json.Unmarshal(v, &ops); err != nil || len(ops) != 2 {
				return fmt.Errorf("condition %s needs two operands", k)
			}
			for i, raw := range ops {
				if err := c.Operands[i].UnmarshalJSON(raw); err != nil {
					return err
				}
			}
			return nil
		default:
			return fmt.Errorf("unknown condition operator %q", k)
		}
	}
	return nil
}

// UnmarshalJSON reads {"path": ...} or a literal.
func (o *Operand) UnmarshalJSON(b []byte) error {
	var p struct {
		Path *string `json:"path"`
	}
	if err := json.Unmarshal(b, &p); err == nil && p.Path != nil {
		o.Path = *p.Path
		return nil
	}
	return json.Unmarshal(b, &o.Literal)
}
