package screens

import (
	"net/url"
	"strconv"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
)

// The unsubscribe flow: a full-screen dialog whose every step is a page of
// its own, /dashboard/unsubscribe/<step>?attempt=<id>, composed on the server
// (docs/retention.md). Moving on is a link (a history entry, so the browser's
// back and forward work); answers and offers post actions. Every text is a
// copy key unsubscribe.step<N>.<name> (or unsubscribe.<name> for the parts
// every step shares), read through c.T, so an experiment's variant of a key
// replaces it.
const (
	// PathUnsubscribe opens a new attempt (My Plan's Cancel,
	// ?unsubscription=true); it is replaced by step 0 of the attempt.
	PathUnsubscribe = "/dashboard/unsubscribe"
	// UnsubscribeOverlay is the flow's dialog.
	UnsubscribeOverlay = "unsubscribe"
)

// Results of the flow's offers and of the final cancel, each a page of its
// own (PathUnsubscribe + "/" + result).
const (
	UnsubscribeUpdated  = retention.ResultUpdated  // the plan change was taken
	UnsubscribeGifted   = retention.ResultGifted   // the free month was taken
	UnsubscribeCanceled = retention.ResultCanceled // the membership is canceled
)

// Forms of the flow.
const (
	unsubscribeOfferForm  = "unsubscribe-offer"
	unsubscribeReasonForm = "unsubscribe-reason"
	unsubscribeReviewForm = "unsubscribe-review"
	unsubscribeCancelForm = "unsubscribe-cancel"
	// UnsubscribeReviewMax bounds the review's length.
	UnsubscribeReviewMax = 2000
)

// UnsubscribeState is everything one step shows.
type UnsubscribeState struct {
	Attempt string
	Step    retention.Step
	// Result, when set, is the outcome page shown instead of the step.
	Result    string
	Situation retention.Situation
	// Return is the app path closing the flow goes back to.
	Return string
	Email  string // for the cancel-by-email modal
	Plan   billing.Plan
	// PeriodEnd is the current period's end as shown ("Dec 2, 2026"), and
	// GiftEnd the end after a free month.
	PeriodEnd string
	GiftEnd   string
	// Sale is the plan change's offer (the brand's premium sale plan).
	Sale billing.PlanSpec
	// Next names the plan a change is scheduled to ("" for none): a cancel
	// drops it, and the cancel step says so.
	Next string
	// The answers given so far, shown again when the person comes back.
	Reason string
	Stars  int
	Review string
}

// UnsubscribeStepPath is the address of a step of an attempt.
func UnsubscribeStepPath(attempt string, s retention.Step) string {
	return PathUnsubscribe + "/" + strconv.Itoa(int(s)) + "?attempt=" + url.QueryEscape(attempt)
}

// UnsubscribeResultPath is the address of an outcome page of an attempt.
func UnsubscribeResultPath(attempt, result string) string {
	return PathUnsubscribe + "/" + result + "?attempt=" + url.QueryEscape(attempt)
}

// UnsubscribePlacePath is the address of where the flow sends the person:
// a step, an outcome page, or the path the flow returns to.
func UnsubscribePlacePath(p retention.Place) string {
	switch {
	case p.Leave:
		return p.Return
	case p.Result != "":
		return UnsubscribeResultPath(p.Attempt, p.Result)
	}
	return UnsubscribeStepPath(p.Attempt, p.Step)
}

// UnsubscribeStateOf is what a page of the flow shows of what retention
// read for it; email is the subscriber's, for the cancel-by-email modal.
func UnsubscribeStateOf(v retention.View, email string) UnsubscribeState {
	sum := v.Summary
	st := UnsubscribeState{Attempt: sum.ID, Step: v.Step, Result: v.Result, Situation: v.Situation, Return: sum.Return,
		Email: email, Plan: billing.Describe(v.Subscription.PlanCode), Sale: v.Sale,
		Reason: sum.Reason, Stars: sum.Stars, Review: sum.Review}
	if !v.PeriodEnd.IsZero() {
		st.PeriodEnd = brand.Date(v.PeriodEnd)
		st.GiftEnd = brand.Date(v.PeriodEnd.AddDate(0, 1, 0))
	}
	if next := v.Subscription.NextPlanCode; next != "" && !v.Subscription.Canceled() {
		st.Next = billing.Describe(next).Name
	}
	return st
}

// UnsubscribeStep composes one step (or outcome page) of the flow.
func UnsubscribeStep(c Context, st UnsubscribeState) Page {
	if st.Return == "" {
		st.Return = PathDashboard
	}
	key := unsubscribeKey(st)
	var title string
	var body []*ui.Node
	var onLoad *ui.Action
	overlays := map[string]*ui.Node{}
	switch st.Result {
	case UnsubscribeUpdated:
		title, body = unsubscribeUpdated(c, st)
	case UnsubscribeGifted:
		title, body = unsubscribeGifted(c, st)
	case UnsubscribeCanceled:
		title, body = unsubscribeCanceled(c, st)
	default:
		title = c.T(key + "title")
		body = unsubscribeBody(c, st, key)
		if st.Step == retention.StepPleaseWait {
			onLoad = ui.After(retention.PleaseWaitMS,
				ui.Replace(UnsubscribeStepPath(st.Attempt, retention.Next(st.Step, retention.MoveForward, st.Situation))))
		}
		if st.Step == retention.StepCancel {
			ask, sent := CancelByEmail(c, st.Email)
			overlays[CancelByEmailOverlay], overlays[CancelSentOverlay] = ask, sent
		}
		if back := retention.Next(st.Step, retention.MoveBack, st.Situation); back != st.Step {
			link := ui.Link(c.T("unsubscribe.back"), ui.Navigate(UnsubscribeStepPath(st.Attempt, back)))
			link.Icon = "back"
			body = append([]*ui.Node{link}, body...)
		}
		if st.Step != retention.StepCancel {
			// Click to cancel: on every step, a plain way straight to the
			// final cancel.
			now := ui.Link(c.T("unsubscribe.cancelNow"),
				ui.Navigate(UnsubscribeStepPath(st.Attempt, retention.Next(st.Step, retention.MoveNow, st.Situation))))
			now.ID = "unsubscribe-cancel-now"
			body = append(body, ui.Divider(), now)
		}
	}
	closeAction := ui.Replace(st.Return)
	if st.Result == "" {
		closeAction = unsubscribeLeave("close")
	}
	d := ui.Dialog(UnsubscribeOverlay, "fullscreen", title, ui.Stack("lg", body...))
	d.CloseLabel = c.T("unsubscribe.close")
	d.OnClose = closeAction
	if st.Result != "" {
		d.Outcome = "success"
	}
	overlays[UnsubscribeOverlay] = d

	screen := ui.Screen("unsubscribe", title) // the dialog covers it
	screen.Layout = "bare"
	screen.OnLoad = onLoad
	state := map[string]any{"attempt": st.Attempt, "step": int(st.Step), "exit": "", "return": st.Return}
	switch st.Step {
	case retention.StepReason:
		state["reason"] = st.Reason
	case retention.StepReview:
		var stars any
		if st.Stars > 0 {
			stars = st.Stars
		}
		state["stars"], state["review"] = stars, st.Review
	}
	return Page{Screen: screen, Overlays: overlays, Open: []string{UnsubscribeOverlay}, State: state}
}

// unsubscribeKey starts the copy keys of a step. An offer step (3 or 7)
// shows the subscriber's offer for it (an offer experiment may put the free
// month on step 3), in the words of the step that offer belongs to.
func unsubscribeKey(st UnsubscribeState) string {
	n := int(st.Step)
	switch st.Situation.OfferAt(st.Step) {
	case retention.OfferPlanChange:
		n = int(retention.StepPlanChange)
	case retention.OfferGiftMonth:
		n = int(retention.StepGiftMonth)
	}
	return "unsubscribe.step" + strconv.Itoa(n) + "."
}

// unsubscribeLeave closes the flow through the server, which records how
// ("stay", "keep", "close") and answers the way back.
func unsubscribeLeave(how string) *ui.Action {
	return ui.Sequence(ui.SetState("/exit", how), ui.Call("unsubscribe.leave", "/attempt", "/step", "/exit"))
}

func (st UnsubscribeState) next(m retention.Move) *ui.Action {
	return ui.Navigate(UnsubscribeStepPath(st.Attempt, retention.Next(st.Step, m, st.Situation)))
}

// offerSubmit posts an offer's or the cancel's action with the attempt.
func offerSubmit(action, form string) *ui.Action {
	a := ui.Submit(action, form)
	a.Include = []string{"/attempt"}
	a.Validate = "none"
	return a
}

func centered(style, text string) *ui.Node {
	n := ui.Text(style, text)
	n.Align = "center"
	return n
}

func unsubscribeBody(c Context, st UnsubscribeState, key string) []*ui.Node {
	body := st.Step
	switch st.Situation.OfferAt(st.Step) {
	case retention.OfferPlanChange:
		body = retention.StepPlanChange
	case retention.OfferGiftMonth:
		body = retention.StepGiftMonth
	}
	switch body {
	case retention.StepBenefits:
		benefits := make([]*ui.Node, 0, 4)
		for i := 1; i <= 4; i++ {
			benefits = append(benefits, ui.Row("sm", ui.Icon("check"), ui.Text("body", c.T(key+"benefit."+strconv.Itoa(i)))))
		}
		return []*ui.Node{
			ui.Text("body", c.T(key+"text")),
			ui.List(false, benefits...),
			ui.Badge(c.T(key+"claim"), "brand"),
			ui.Button(c.T(key+"stay"), "primary", unsubscribeLeave("stay")),
			ui.Button(c.T(key+"leave"), "secondary", st.next(retention.MoveForward)),
		}
	case retention.StepPleaseWait:
		// The loader shows and announces its words (a status): once (issue #21).
		return []*ui.Node{ui.Loader(c.T(key+"text"), false)}
	case retention.StepPlan:
		card := ui.Card(nil,
			ui.Text("caption", c.T(key+"current")),
			ui.Row("sm", ui.Text("heading", st.Plan.Name), ui.Badge(st.Plan.Status, "brand")),
			ui.Text("body", fill(c.T(key+"price"), "{price}", st.Plan.Price, "{period}", st.Plan.Period)),
			ui.If(st.PeriodEnd != "", ui.Text("caption", fill(c.T(key+"renews"), "{date}", st.PeriodEnd))),
		)
		return []*ui.Node{
			card,
			ui.Button(c.T(key+"change"), "primary", st.next(retention.MoveChange)),
			ui.Button(c.T(key+"cancel"), "secondary", st.next(retention.MoveCancel)),
		}
	case retention.StepPlanChange:
		price := ui.Row("sm", ui.Text("heading", fill(c.T(key+"price"), "{price}", st.Sale.Price.String())),
			ui.Badge(fill(c.T(key+"discount"), "{n}", strconv.Itoa(st.Sale.Discount)), "positive"))
		accept := offerSubmit("unsubscribe.change_plan", unsubscribeOfferForm)
		return []*ui.Node{
			ui.Text("body", c.T(key+"text")),
			ui.Card(nil,
				ui.Text("heading", c.T(key+"plan")),
				price,
				ui.Text("caption", fill(c.T(key+"fullPrice"), "{price}", st.Sale.FullPrice.String())),
				ui.Text("body", c.T(key+"billing")),
				ui.Row("sm", ui.Icon("shield"), ui.Text("caption", c.T(key+"guarantee"))),
			),
			ui.Form(unsubscribeOfferForm, accept, ui.FormError(unsubscribeOfferForm),
				ui.Button(c.T(key+"accept"), "primary", accept)),
			ui.Button(c.T(key+"decline"), "tertiary", st.next(retention.MoveForward)),
		}
	case retention.StepMadeTheMost:
		points := make([]*ui.Node, 0, 3)
		for i := 1; i <= 3; i++ {
			points = append(points, ui.Row("sm", ui.Icon("check"), ui.Text("body", c.T(key+"point."+strconv.Itoa(i)))))
		}
		return []*ui.Node{
			ui.Text("body", c.T(key+"text")),
			ui.List(false, points...),
			ui.Button(c.T(key+"keep"), "primary", unsubscribeLeave("keep")),
			ui.Button(c.T(key+"optOut"), "secondary", st.next(retention.MoveForward)),
		}
	case retention.StepReason:
		options := make([]ui.Option, len(retention.Reasons))
		for i, r := range retention.Reasons {
			options[i] = ui.Option{Value: r, Label: c.T("unsubscribe.reason." + strconv.Itoa(i+1))}
		}
		choices := &ui.Node{Type: "choice_list", ID: "reason", Bind: "/reason", Label: c.T(key + "label"),
			Options: options, Rules: []ui.Rule{ui.Required(c.T(key + "required"))}}
		submit := ui.Submit("unsubscribe.reason", unsubscribeReasonForm)
		submit.Include = []string{"/attempt"}
		cont := ui.Button(c.T(key+"continue"), "primary", submit)
		cont.DisabledWhen = ui.Not(ui.Truthy("/reason"))
		return []*ui.Node{ui.Form(unsubscribeReasonForm, submit, choices, ui.FormError(unsubscribeReasonForm), cont)}
	case retention.StepReview:
		rating := &ui.Node{Type: "rating", ID: "stars", Bind: "/stars", Label: c.T(key + "rating"), Max: 5}
		review := &ui.Node{Type: "textarea", ID: "review", Bind: "/review", Label: c.T(key + "review"),
			Placeholder: c.T(key + "placeholder"), Rows: 4, MaxLength: UnsubscribeReviewMax,
			Rules: []ui.Rule{ui.Required(c.T(key + "required")), ui.MaxLength(UnsubscribeReviewMax, c.T(key+"tooLong"))}}
		submit := ui.Submit("unsubscribe.review", unsubscribeReviewForm)
		submit.Include = []string{"/attempt"}
		cont := ui.Button(c.T(key+"continue"), "primary", submit)
		cont.DisabledWhen = ui.Not(ui.Truthy("/review"))
		return []*ui.Node{ui.Form(unsubscribeReviewForm, submit, rating, review, ui.FormError(unsubscribeReviewForm), cont)}
	case retention.StepGiftMonth:
		accept := offerSubmit("unsubscribe.gift_month", unsubscribeOfferForm)
		return []*ui.Node{
			ui.Card(nil,
				ui.Badge(c.T(key+"badge"), "positive"),
				ui.Text("heading", c.T(key+"offer")),
				ui.Text("body", fill(c.T(key+"text"), "{date}", st.GiftEnd)),
			),
			ui.Form(unsubscribeOfferForm, accept, ui.FormError(unsubscribeOfferForm),
				ui.Button(c.T(key+"accept"), "primary", accept)),
			ui.Button(c.T(key+"decline"), "tertiary", st.next(retention.MoveForward)),
		}
	case retention.StepCancel:
		confirm := offerSubmit("unsubscribe.cancel", unsubscribeCancelForm)
		until := c.T(key + "textNoDate")
		if st.PeriodEnd != "" {
			until = fill(c.T(key+"text"), "{date}", st.PeriodEnd)
		}
		return []*ui.Node{
			ui.Text("body", until),
			ui.If(st.Next != "", ui.Text("body", fill(c.T("unsubscribe.cancelDropsChange"), "{plan}", st.Next))),
			ui.Form(unsubscribeCancelForm, confirm, ui.FormError(unsubscribeCancelForm),
				ui.Button(c.T(key+"confirm"), "primary", confirm)),
			ui.Button(c.T(key+"keep"), "secondary", unsubscribeLeave("keep")),
			ui.Link(c.T(key+"byEmail"), ui.OpenOverlay(CancelByEmailOverlay)),
		}
	}
	return nil
}

func unsubscribeUpdated(c Context, st UnsubscribeState) (string, []*ui.Node) {
	title := c.T("unsubscribe.step3.success") // the dialog's heading
	return title, []*ui.Node{
		centered("body", fill(c.T("unsubscribe.step3.successText"), "{price}", st.Sale.Price.String(), "{date}", st.PeriodEnd)),
		ui.Button(c.T("unsubscribe.step3.great"), "primary", ui.Replace(st.Return)),
	}
}

func unsubscribeGifted(c Context, st UnsubscribeState) (string, []*ui.Node) {
	title := c.T("unsubscribe.step7.success") // the dialog's heading
	return title, []*ui.Node{
		centered("body", fill(c.T("unsubscribe.step7.successText"), "{date}", st.PeriodEnd)),
		ui.Button(c.T("unsubscribe.step7.great"), "primary", ui.Replace(st.Return)),
	}
}

func unsubscribeCanceled(c Context, st UnsubscribeState) (string, []*ui.Node) {
	title := c.T("unsubscribe.step8.success") // the dialog's heading
	text := c.T("unsubscribe.step8.successTextNoDate")
	if st.PeriodEnd != "" {
		text = fill(c.T("unsubscribe.step8.successText"), "{date}", st.PeriodEnd)
	}
	return title, []*ui.Node{
		centered("body", text),
		ui.Button(c.T("unsubscribe.step8.home"), "primary", ui.Replace(PathDashboard)),
		ui.Button(c.T("unsubscribe.step8.contact"), "secondary", ui.OpenURL("mailto:"+c.Brand.SupportEmail, false)),
	}
}
