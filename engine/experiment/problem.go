package experiment

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
	// The questions asked at creation, and the holdout's share.
	ProblemHypothesis   = "studio.experiments.problem.hypothesis"
	ProblemMetric       = "studio.experiments.problem.metric"
	ProblemHoldout      = "studio.experiments.problem.holdout"
	ProblemHoldoutRange = "studio.experiments.problem.holdoutRange"
	ProblemHoldoutOffer = "studio.experiments.problem.holdoutOffer"
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
	ProblemKeyFixed, ProblemVariants, ProblemValue, ProblemOfferID, ProblemWeightRange, ProblemNoWeight,
	ProblemHypothesis, ProblemMetric, ProblemHoldout, ProblemHoldoutRange, ProblemHoldoutOffer}

// invalid is the error of problems: nil for none.
func invalid(problems Problems) error { return engine.Invalid("experiment", problems) }

func tooLong(max int) Problem {
	return Problem{Code: ProblemTooLong, Args: map[string]string{ArgUnder: strconv.Itoa(max + 1)}}
}
