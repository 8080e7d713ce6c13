package experiment

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// ProblemWeight is the words of a weight that is not a whole number: reading
// the form (FromForm) finds it, before Validate.
const ProblemWeight = "studio.experiments.problem.weight"

// FormVariant is one variant row of the experiment form, as typed.
type FormVariant struct{ Name, Value, Weight string }

// FormQuestions are what the form asks besides the variants, as typed:
// the hypothesis, the primary metric and the holdout's percent.
type FormQuestions struct{ Hypothesis, Metric, Holdout string }

// FromForm reads the experiment form: the first two variants always, a
// later one when it has a name, a text or a weight. A weight or a holdout
// that is not a whole number (an empty weight of the first two) is reported
// with every other problem of the form, not alone, in an *InvalidError. The
// holdout is read for an offer experiment only (the form hides it for
// copy); an empty one is none.
func FromForm(name, kind, key string, q FormQuestions, rows []FormVariant) (Experiment, error) {
	e := Experiment{Name: strings.TrimSpace(name), Kind: kind, Key: strings.TrimSpace(key),
		Hypothesis: strings.TrimSpace(q.Hypothesis), Metric: q.Metric}
	problems := Problems{}
	if h := strings.TrimSpace(q.Holdout); kind == KindOffer && h != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(h, "%"))
		if err != nil {
			problems["holdout"] = Problem{Code: ProblemHoldout}
		}
		e.Holdout = n
	}
	for i, r := range rows {
		name, value, weight := strings.TrimSpace(r.Name), strings.TrimSpace(r.Value), strings.TrimSpace(r.Weight)
		if i >= 2 && value == "" && weight == "" && name == "" {
			continue
		}
		w, err := strconv.Atoi(weight)
		if err != nil {
			problems["v"+strconv.Itoa(i)+"weight"] = Problem{Code: ProblemWeight}
		}
		e.Variants = append(e.Variants, Variant{Name: name, Value: value, Weight: w})
	}
	if len(problems) == 0 {
		return e, nil
	}
	for k, v := range Validate(e) {
		if _, ok := problems[k]; !ok {
			problems[k] = v
		}
	}
	return e, &InvalidError{Problems: problems}
}

// Save creates an experiment (id empty) or changes the name and variants of
// experiment id; its kind and key stay as they are, as the form shows them
// read-only.
func (s *Service) Save(ctx context.Context, id string, e Experiment, by string) (Experiment, error) {
	if id == "" {
		return s.Create(ctx, e, by)
	}
	old, err := s.Get(ctx, id)
	if err != nil {
		return Experiment{}, err
	}
	e.Kind, e.Key = old.Kind, old.Key
	return s.Update(ctx, id, e, by)
}

// Page is a subscriber's copy experiments as one page is composed:
// Overrides are the variants' texts to layer over the brand's copy, Read is
// the copy's read hook that notes which experiments' keys the page read, and
// Expose records an exposure for each of those (a subscriber shown the
// control counts too).
type Page struct {
	// Overrides maps a copy key to the subscriber's variant's text (a
	// control without text of its own is left out).
	Overrides map[string]string
	// Assigned are the subscriber's assignments, by experiment id.
	Assigned []Assignment
	svc      *Service
	userID   string
	byKey    map[string]Assignment
	seen     map[string]bool
}

// CopyPage returns a subscriber's copy experiments for a page about to be
// composed; it reads memory only.
func (s *Service) CopyPage(userID string) *Page {
	over, byKey := s.CopyOverrides(userID)
	p := &Page{Overrides: over, svc: s, userID: userID, byKey: byKey, seen: map[string]bool{}}
	for _, a := range byKey {
		p.Assigned = append(p.Assigned, a)
	}
	slices.SortFunc(p.Assigned, func(a, b Assignment) int { return strings.Compare(a.Experiment, b.Experiment) })
	return p
}

// Read notes that the page read key; pass it as the copy's read hook.
func (p *Page) Read(key string) {
	if _, ok := p.byKey[key]; ok {
		p.seen[key] = true
	}
}

// Expose records the exposures of the experiments whose keys were Read.
func (p *Page) Expose(ctx context.Context) error {
	for key := range p.seen {
		if err := p.svc.Expose(ctx, p.userID, p.byKey[key]); err != nil {
			return err
		}
	}
	return nil
}
