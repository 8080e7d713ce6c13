package library

import (
	"strconv"

	"glimpse/engine"
)

// Problem, Problems and InvalidError are the shared vocabulary's
// (engine.Problem): this package decides what is valid, the handler words
// the codes.
type (
	Problem      = engine.Problem
	Problems     = engine.Problems
	InvalidError = engine.InvalidError
)

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
	ProblemSlugTooLong, ProblemSlugUsed, ProblemScheduleTime, ProblemSchedulePast}

// invalid is the error of problems: nil for none.
func invalid(problems Problems) error { return engine.Invalid("content", problems) }

// tooLong is the problem of a text over max characters.
func tooLong(code string, max int) Problem {
	return Problem{Code: code, Args: map[string]string{ArgUnder: strconv.Itoa(max + 1)}}
}
