package experiment

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"glimpse/engine"
)

// Problem is what is wrong with one input of the experiment form: Code is a
// copy key, the studio's words for it, and Args fill that copy's
// {placeholders}. This package decides what is valid; the words are the
// brand's copy, so a rule the form declares and the same rule checked here
// read alike.
type Problem struct {
	Code string
	Args map[string]string
}

// Problems maps a form input id ("name", "kind", "key", "variants",
// "v<i>value", "v<i>weight") to what is wrong with it.
type Problems map[string]Problem

// The codes of Problem: copy keys. ProblemTooLong takes ArgUnder,
// ProblemVariants ArgMin and ArgMax, ProblemWeightRange ArgMax.
// ProblemRequired and ProblemTooLong are the content editor's words, which
// the experiment form's rules show as well.
const (
	ProblemRequired    = "studio.required"
	ProblemTooLong     = "studio.problem.tooLong"
	ProblemKind        = "studio.experiments.problem.kind"
	ProblemCopyKey     = "studio.experiments.problem.copyKey"
	ProblemOfferSlot   = "studio.experiments.problem.offerSlot"
	ProblemKeyFixed    = "studio.experiments.problem.keyFixed"
	ProblemVariants    = "studio.experiments.problem.variants"
	ProblemValue       = "studio.experiments.problem.value"
	ProblemOfferID     = "studio.experiments.problem.offerId"
	ProblemWeightRange = "studio.experiments.problem.weightRange"
	ProblemNoWeight    = "studio.experiments.problem.noWeight"
)

// The args of the codes, as the copy names them.
const (
	ArgUnder = "under" // the first length not allowed
	ArgMin   = "min"
	ArgMax   = "max"
)

// ProblemCodes lists every code above, so a test can check that the default
// brand has copy for each.
var ProblemCodes = []string{ProblemRequired, ProblemTooLong, ProblemKind, ProblemCopyKey, ProblemOfferSlot,
	ProblemKeyFixed, ProblemVariants, ProblemValue, ProblemOfferID, ProblemWeightRange, ProblemNoWeight}

// InvalidError is what Create and Update return (inside an *engine.Error of
// engine.CodeInvalid) for an experiment that breaks the rules; the caller
// words its Problems.
type InvalidError struct{ Problems Problems }

func (e *InvalidError) Error() string {
	parts := make([]string, 0, len(e.Problems))
	for _, id := range slices.Sorted(maps.Keys(e.Problems)) {
		parts = append(parts, id+": "+e.Problems[id].Code)
	}
	return "invalid experiment: " + strings.Join(parts, ", ")
}

// invalid is the error of problems: nil for none.
func invalid(problems Problems) error {
	if len(problems) == 0 {
		return nil
	}
	return &engine.Error{Code: engine.CodeInvalid, Err: &InvalidError{Problems: problems}}
}

func tooLong(max int) Problem {
	return Problem{Code: ProblemTooLong, Args: map[string]string{ArgUnder: strconv.Itoa(max + 1)}}
}
