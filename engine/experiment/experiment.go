// Package experiment runs A/B experiments on the unsubscribe flow: which text
// a copy key shows, or which offer a step (or a stated reason) leads to.
// Subscribers are assigned by a deterministic hash (assign.go), exposures
// and outcomes are counted in memory and flushed as unique documents
// (counts.go), and results carry intervals that may be read every day
// (stats.go). See docs/experiments.md.
package experiment

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kinds of experiment.
const (
	// KindCopy varies the text of one copy key of the flow.
	KindCopy = "copy"
	// KindOffer varies which offer an offer slot shows: a step's offer
	// ("offer.step3") or the offer a reason routes to ("offer.reason.price").
	KindOffer = "offer"
)

// Statuses of an experiment.
const (
	StatusDraft   = "draft"
	StatusRunning = "running"
	StatusPaused  = "paused"
	StatusStopped = "stopped"
)

// CopyPrefix is what the copy keys an experiment may target start with: the
// unsubscribe flow's texts.
const CopyPrefix = "unsubscribe."

// OfferPrefix starts every offer slot.
const OfferPrefix = "offer."

// Limits of what an experiment holds.
const (
	MinVariants = 2
	MaxVariants = 4
	maxName     = 120
	maxValue    = 2000
	maxWeight   = 10000
	maxHypo     = 1000
)

// Primary metrics: what the tester says decides the experiment.
const (
	// MetricSaveRate: held saves over exposed subscribers.
	MetricSaveRate = "save_rate"
	// MetricRevenuePerAttempt: the revenue kept over the save window, per
	// cancel attempt (an offer that saves people by giving money away can
	// lose on it).
	MetricRevenuePerAttempt = "revenue_per_attempt"
)

// Metrics lists the primary metrics in the form's order.
var Metrics = []string{MetricSaveRate, MetricRevenuePerAttempt}

// The no-offer holdout of an offer experiment.
const (
	// HoldoutID is the holdout's arm id in exposures, marks and counters.
	HoldoutID = "holdout"
	// MaxHoldout is the largest holdout, in percent: the holdout is a
	// baseline, not an arm that should cost the offers their traffic.
	MaxHoldout = 20
	// DefaultHoldout is the holdout a new offer experiment's form suggests.
	DefaultHoldout = 10
)

// Variant is one arm. The first variant is the control; a control whose
// Value is empty shows the flow's own copy (or offer).
type Variant struct {
	ID     string
	Name   string
	Value  string
	Weight int
}

// Experiment is one A/B experiment.
type Experiment struct {
	ID       string
	Name     string
	Kind     string
	Key      string
	Variants []Variant
	Status   string
	// Phase starts at 1 and grows whenever the variants change after the
	// experiment first ran: people are bucketed afresh, so results are kept
	// per phase.
	Phase          int
	PhaseStartedAt time.Time
	// Started is set once it first ran.
	Started bool
	// Revision counts the saves: a save is stored only over the revision
	// it was made from (Storage.Replace), so of two edits made from the
	// same revision the second is refused rather than lost.
	Revision  int
	CreatedBy string
	CreatedAt time.Time
	UpdatedBy string
	UpdatedAt time.Time

	// What the tester set out to learn, asked for at creation (issue #34):
	// the hypothesis in their words, the one metric that decides (a
	// Metric… constant) and, for an offer experiment, the share of
	// attempts held out of every offer (whole percent, 0 to MaxHoldout).
	Hypothesis string
	Metric     string
	Holdout    int
}

// Weights returns the variants' weights in order.
func (e Experiment) Weights() []int {
	w := make([]int, len(e.Variants))
	for i, v := range e.Variants {
		w[i] = v.Weight
	}
	return w
}

// Running reports whether subscribers are being assigned.
func (e Experiment) Running() bool { return e.Status == StatusRunning }

// RunningKey is the key e holds while it runs ("" when it does not): one
// experiment at a time may run on a key, which the store enforces with a
// unique key on it.
func (e Experiment) RunningKey() string {
	if !e.Running() {
		return ""
	}
	return e.Key
}

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Validate checks an experiment's editable fields and returns the problems
// by form input: "name", "kind", "key", "variants", or "v<i>value" and
// "v<i>weight" (the studio form's input ids).
func Validate(e Experiment) Problems {
	problems := Problems{}
	switch {
	case strings.TrimSpace(e.Name) == "":
		problems["name"] = Problem{Code: ProblemRequired}
	case utf8.RuneCountInString(e.Name) > maxName:
		problems["name"] = tooLong(maxName)
	}
	switch e.Kind {
	case KindCopy:
		if !strings.HasPrefix(e.Key, CopyPrefix) || !keyPattern.MatchString(e.Key) {
			problems["key"] = Problem{Code: ProblemCopyKey}
		}
	case KindOffer:
		if !strings.HasPrefix(e.Key, OfferPrefix) || !keyPattern.MatchString(e.Key) {
			problems["key"] = Problem{Code: ProblemOfferSlot}
		}
	default:
		problems["kind"] = Problem{Code: ProblemKind}
	}
	if len(e.Variants) < MinVariants || len(e.Variants) > MaxVariants {
		problems["variants"] = Problem{Code: ProblemVariants,
			Args: map[string]string{ArgMin: strconv.Itoa(MinVariants), ArgMax: strconv.Itoa(MaxVariants)}}
	}
	total := 0
	for i, v := range e.Variants {
		value, weight := "v"+strconv.Itoa(i)+"value", "v"+strconv.Itoa(i)+"weight"
		if utf8.RuneCountInString(v.Value) > maxValue {
			problems[value] = tooLong(maxValue)
		}
		if i > 0 && strings.TrimSpace(v.Value) == "" {
			problems[value] = Problem{Code: ProblemValue}
		}
		if e.Kind == KindOffer && v.Value != "" && !keyPattern.MatchString(v.Value) {
			problems[value] = Problem{Code: ProblemOfferID}
		}
		if v.Weight < 0 || v.Weight > maxWeight {
			problems[weight] = Problem{Code: ProblemWeightRange, Args: map[string]string{ArgMax: strconv.Itoa(maxWeight)}}
		}
		total += max(v.Weight, 0)
	}
	if total == 0 && len(e.Variants) > 0 {
		problems["v0weight"] = Problem{Code: ProblemNoWeight}
	}
	switch {
	case strings.TrimSpace(e.Hypothesis) == "":
		problems["hypothesis"] = Problem{Code: ProblemHypothesis}
	case utf8.RuneCountInString(e.Hypothesis) > maxHypo:
		problems["hypothesis"] = tooLong(maxHypo)
	}
	if !slices.Contains(Metrics, e.Metric) {
		problems["metric"] = Problem{Code: ProblemMetric}
	}
	switch {
	case e.Holdout < 0 || e.Holdout > MaxHoldout:
		problems["holdout"] = Problem{Code: ProblemHoldoutRange, Args: map[string]string{ArgMax: strconv.Itoa(MaxHoldout)}}
	case e.Holdout > 0 && e.Kind != KindOffer:
		problems["holdout"] = Problem{Code: ProblemHoldoutOffer}
	}
	return problems
}

// variantsChanged reports whether a change of variants re-buckets people or
// changes what they see: any weight, value, or the number of variants.
func variantsChanged(a, b []Variant) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i].Weight != b[i].Weight || a[i].Value != b[i].Value {
			return true
		}
	}
	return false
}
