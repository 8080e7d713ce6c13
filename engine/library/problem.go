package library

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"glimpse/engine"
)

// Problem is what is wrong with one input of an item: Code is a copy key,
// the studio's words for it, and Args fill that copy's {placeholders}. The
// content package decides what is valid; the words are the brand's copy, so
// a rule the edit screen declares and the same rule checked here read alike.
type Problem struct {
	Code string
	Args map[string]string
}

// Problems maps an input id (a field's name, "slug" or "kind") to what is
// wrong with it.
type Problems map[string]Problem

// The codes of Problem: copy keys. ProblemTooLong and ProblemSlugTooLong
// take ArgUnder; ProblemRequired is the very key the edit screen's required
// rules show.
const (
	ProblemRequired    = "studio.required"
	ProblemUnknownKind = "studio.problem.unknownKind"
	ProblemNotEditable = "studio.problem.notEditable"
	ProblemTooLong     = "studio.problem.tooLong"
	ProblemDate        = "studio.problem.date"
	ProblemImage       = "studio.problem.image"
	ProblemPart        = "studio.problem.part"
	ProblemSlug        = "studio.problem.slug"
	ProblemArticleSlug = "studio.problem.articleSlug"
	ProblemCopySlug    = "studio.problem.copySlug"
	ProblemUnknownPage = "studio.problem.unknownPage"
	ProblemSlugTooLong = "studio.problem.slugTooLong"
	ProblemSlugUsed    = "studio.problem.slugUsed"
)

// ArgUnder is the arg of the length problems: the first length not allowed,
// as the copy says "under {under} characters".
const ArgUnder = "under"

// ProblemCodes lists every code above, so a test can check that the default
// brand has copy for each.
var ProblemCodes = []string{ProblemRequired, ProblemUnknownKind, ProblemNotEditable, ProblemTooLong, ProblemDate,
	ProblemImage, ProblemPart, ProblemSlug, ProblemArticleSlug, ProblemCopySlug, ProblemUnknownPage,
	ProblemSlugTooLong, ProblemSlugUsed}

// InvalidError is what Save returns (inside an *engine.Error of
// engine.CodeInvalid) for input that breaks the rules; the caller words its
// Problems.
type InvalidError struct{ Problems Problems }

func (e *InvalidError) Error() string {
	parts := make([]string, 0, len(e.Problems))
	for _, id := range slices.Sorted(maps.Keys(e.Problems)) {
		parts = append(parts, id+": "+e.Problems[id].Code)
	}
	return "invalid content: " + strings.Join(parts, ", ")
}

// invalid is the error of problems: nil for none.
func invalid(problems Problems) error {
	if len(problems) == 0 {
		return nil
	}
	return &engine.Error{Code: engine.CodeInvalid, Err: &InvalidError{Problems: problems}}
}

// tooLong is the problem of a text over max characters.
func tooLong(code string, max int) Problem {
	return Problem{Code: code, Args: map[string]string{ArgUnder: strconv.Itoa(max + 1)}}
}
