package screens

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/retention"
	"glimpse/engine/support"
	"glimpse/engine/ui"
)

// Support desk paths, forms and overlays.
const (
	PathStudioSupport = "/studio/support"
	SupportFindForm   = "support-find"
	// The action dialogs, each one form of the same id.
	SupportRefund = "support-refund"
	// The refund dialog's two kinds: all that is left, or an amount.
	SupportRefundFull = "full"
	SupportRefundPart = "part"
	SupportCancel     = "support-cancel"
	SupportExtend     = "support-extend"
	SupportResend     = "support-resend"
	SupportSignOut    = "support-sign-out"
	// SupportWhenNow and SupportWhenPeriodEnd are the cancel dialog's
	// choices.
	SupportWhenNow       = "now"
	SupportWhenPeriodEnd = "period_end"
	// The resend dialog's values are "<kind>:<id>".
	SupportResendActivation = "activation"
	SupportResendReceipt    = "receipt"
)

// SupportState is the desk: what was searched and found, the subscriber
// open (if any: nil when nothing was found, or nothing asked), the audit
// log to show, and the key that names this view's requests.
type SupportState struct {
	Staff string
	// Query is what was typed in the search box; Matches what it found
	// (listed beside the dossier when there are several).
	Query   string
	Matches []support.Match
	Email   string
	Dossier *support.Dossier
	// Done is the action just taken (an audit action's name): the desk
	// confirms it in words at the top of the dossier.
	Done string
	// Audit is the whole log's newest entries, shown when no subscriber
	// is open (an open one shows theirs).
	Audit []support.Entry
	Key   string
	// Admin members also get the way back to the studio's content.
	Admin bool
}

// supportTime writes a time as the desk shows every time: in UTC, to the
// minute.
func supportTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("Jan 2, 2006 15:04 UTC")
}

// SupportPath is the desk's address for a search, the subscriber open and
// the action just confirmed (each may be empty).
func SupportPath(query, email, done string) string {
	var parts []string
	for _, p := range [][2]string{{"q", query}, {"email", email}, {"done", done}} {
		if p[1] != "" {
			parts = append(parts, p[0]+"="+url.QueryEscape(p[1]))
		}
	}
	if len(parts) == 0 {
		return PathStudioSupport
	}
	return PathStudioSupport + "?" + strings.Join(parts, "&")
}

// SupportDesk is the support desk, laid out as a desk: one search box and
// its matches in a list on the left; on the right the subscriber open
// (their dossier, actions first) or, with nobody open, the audit log. On a
// phone the two stack.
func SupportDesk(c Context, s SupportState) Page {
	query := ui.TextInput("query", "text", c.T("support.findLabel"), c.T("support.findPlaceholder"),
		ui.MaxLength(support.MaxQuery, c.T("support.queryLong")))
	find := ui.Form(SupportFindForm, ui.Submit("support.find", SupportFindForm), query,
		ui.Text("caption", c.T("support.findHint")),
		ui.FormError(SupportFindForm),
		ui.Button(c.T("support.find"), "primary", ui.Submit("support.find", SupportFindForm)))
	typed := s.Query
	if typed == "" {
		typed = s.Email
	}
	page := Page{State: map[string]any{"form": map[string]any{"query": typed},
		"desk": map[string]any{"email": s.Email, "key": s.Key, "q": s.Query}}}
	left := []*ui.Node{find}
	if s.Query != "" && len(s.Matches) > 0 {
		left = append(left, matchList(c, s))
	}
	var right *ui.Node
	switch {
	case s.Dossier != nil:
		page.Overlays = supportDialogs(c, *s.Dossier)
		form := page.State["form"].(map[string]any)
		for k, v := range supportFormState(c, *s.Dossier) {
			form[k] = v
		}
		parts := []*ui.Node{}
		if s.Done != "" {
			parts = append(parts, doneBanner(c, s))
		}
		parts = append(parts, dossierParts(c, *s.Dossier, s.Done == "")...)
		right = ui.Stack("lg", parts...)
	case s.Query != "" || s.Email != "":
		what := s.Query
		if what == "" {
			what = s.Email
		}
		right = ui.Stack("lg", &ui.Node{Type: "empty_state", Title: fill(c.T("support.notFound"), "{query}", what),
			Text: c.T("support.notFoundText"), Icon: "search"},
			auditList(c, c.T("support.audit"), s.Audit))
	default:
		right = auditList(c, c.T("support.audit"), s.Audit)
	}
	foot := []*ui.Node{ui.Text("caption", fill(c.T("studio.signedInAs"), "{who}", s.Staff))}
	if s.Admin {
		foot = append(foot, ui.Link(c.T("support.toStudio"), ui.Navigate(PathStudio)))
	}
	foot = append(foot, ui.Button(c.T("studio.signOut"), "secondary", ui.Call("studio.sign_out")))
	left = append(left, ui.Stack("sm", foot...))
	scr := ui.Screen("studio-support", c.T("support.title"), ui.Split("xl", ui.Stack("lg", left...), right))
	scr.Header = &ui.Node{Type: "header", Title: c.T("support.title")}
	scr.Width = "desk"
	page.Screen = scr
	return page
}

// matchList is what a search found: each subscriber's address, plans and
// what matched, the one open marked.
func matchList(c Context, s SupportState) *ui.Node {
	rows := make([]*ui.Node, 0, len(s.Matches))
	for _, m := range s.Matches {
		sub := []string{fill(c.T("support.via."+m.Via), "{username}", m.Username, "{part}", m.Part)}
		if m.Via != support.ViaInstagram && m.Username != "" {
			// Found by address and by username too: say both.
			sub = append(sub, fill(c.T("support.via."+support.ViaInstagram), "{username}", m.Username))
		}
		if len(m.Plans) > 0 {
			sub = append([]string{strings.Join(m.Plans, ", ")}, sub...)
		}
		item := deskLine(m.Email, strings.Join(sub, " · "))
		item.Action = ui.Navigate(SupportPath(s.Query, m.Email, ""))
		if m.Email == s.Email {
			item.Trailing = ui.Badge(c.T("support.open"), "info")
		}
		rows = append(rows, item)
	}
	title := fill(c.T("support.matches"), "{n}", strconv.Itoa(len(s.Matches)))
	if len(s.Matches) >= support.SearchLimit {
		title = fill(c.T("support.matchesMore"), "{n}", strconv.Itoa(len(s.Matches)))
	}
	list := ui.List(true, rows...)
	list.Label = title
	return ui.Stack("sm", ui.Text("heading", title), list)
}

// doneBanner confirms the action just taken, in words, from its audit
// entry (the subscriber's newest of that action); it takes the focus, so a
// screen reader reads it first.
func doneBanner(c Context, s SupportState) *ui.Node {
	text := c.T("support.done.generic")
	for _, e := range s.Dossier.Audit {
		if e.Action != s.Done {
			continue
		}
		if e.Outcome == support.OutcomeDone {
			text = fill(c.T("support.done."+e.Action), "{detail}", e.Detail, "{who}", e.Subscriber, "{date}", planEnd(*s.Dossier, e.Target))
		}
		break
	}
	msg := ui.Text("body", text)
	msg.Focus = true
	return &ui.Node{Type: "banner", Tone: "positive", Title: c.T("support.doneTitle"), Children: []*ui.Node{msg}}
}

// supportFormState is the dialogs' inputs: empty, but where a dialog has
// one thing to act on, it is chosen already (a choice of one is no choice).
func supportFormState(c Context, d support.Dossier) map[string]any {
	refundable, plans, running, resend := supportTargets(c, d)
	only := func(opts []ui.Option) string {
		if len(opts) == 1 {
			return opts[0].Value
		}
		return ""
	}
	return map[string]any{"refundCharge": only(refundable), "refundKind": "", "refundAmount": "", "refundReason": "",
		"cancelSubscription": only(plans), "cancelWhen": SupportWhenPeriodEnd, "cancelReason": "",
		"extendSubscription": only(running), "extendDays": "", "extendReason": "",
		"resendWhat": only(resend), "resendReason": "", "signOutReason": ""}
}

// section is a heading and a labelled list, or a line saying there is
// nothing.
func deskSection(c Context, title, none string, rows []*ui.Node) *ui.Node {
	if len(rows) == 0 {
		return ui.Stack("sm", ui.Text("heading", title), ui.Text("body", none))
	}
	list := ui.List(true, rows...)
	list.Label = title
	return ui.Stack("sm", ui.Text("heading", title), list)
}

func deskLine(title, subtitle string) *ui.Node {
	return &ui.Node{Type: "list_item", Title: title, Subtitle: subtitle}
}

// dossierParts are what the desk holds of the subscriber, in words, the
// actions first; focus puts the keyboard on their heading (not when a
// confirmation above it takes it).
func dossierParts(c Context, d support.Dossier, focus bool) []*ui.Node {
	account := c.T("support.noAccount")
	if d.Account != nil {
		account = fill(c.T("support.accountSince"), "{date}", brand.Date(d.Account.CreatedAt))
		if d.Account.Disabled {
			account += " · " + c.T("support.disabled")
		}
	}
	heading := ui.Text("title", d.Email)
	heading.Focus = focus
	parts := []*ui.Node{ui.Stack("xs", heading, ui.Text("body", account)), supportActions(c, d)}

	subs := make([]*ui.Node, 0, len(d.Subscriptions))
	for _, s := range d.Subscriptions {
		facts := []string{c.T("support.status." + s.Status)}
		switch {
		case s.Suspended:
			facts = append(facts, c.T("support.suspended"))
		case s.ExpiresAt != nil:
			facts = append(facts, fill(c.T("support.endsOn"), "{date}", brand.Date(*s.ExpiresAt)))
		case !s.PeriodEnd.IsZero():
			facts = append(facts, fill(c.T("support.renewsOn"), "{date}", brand.Date(s.PeriodEnd)))
		}
		if s.NextPlan != "" && !s.PeriodEnd.IsZero() {
			facts = append(facts, fill(c.T("support.changesTo"), "{plan}", s.NextPlan, "{date}", brand.Date(s.PeriodEnd)))
		}
		if s.AwaitsAccount {
			facts = append(facts, c.T("support.awaitsAccount"))
		}
		if s.Card != "" {
			facts = append(facts, s.Card)
		}
		facts = append(facts, fill(c.T("support.since"), "{date}", brand.Date(s.StartedAt)))
		item := deskLine(s.Plan+" · "+s.Price.String(), strings.Join(facts, " · "))
		tone := "neutral"
		if s.Counts {
			tone = "positive"
		}
		item.Trailing = ui.Badge(c.T("support.status."+s.Status), tone)
		subs = append(subs, item)
	}
	parts = append(parts, deskSection(c, c.T("support.subscriptions"), c.T("support.none"), subs))

	charges := make([]*ui.Node, 0, len(d.Charges))
	for _, ch := range d.Charges {
		// A charge refunded since was paid on its date: the refunds say the rest.
		status := ch.Status
		if status == billing.ChargeRefunded || status == billing.ChargePartiallyRefunded {
			status = billing.ChargeSucceeded
		}
		parts := []string{fill(c.T("support.chargeOn"), "{status}", c.T("support.charge."+status), "{date}", brand.Date(ch.CreatedAt))}
		if ch.Card != "" {
			parts[0] += " " + fill(c.T("support.withCard"), "{card}", ch.Card)
		}
		if ch.Receipt != "" {
			parts = append(parts, fill(c.T("support.receiptNo"), "{number}", ch.Receipt))
		}
		for _, r := range ch.Refunds {
			parts = append(parts, refundWords(c, r))
		}
		parts = append(parts, fill(c.T("support.chargeId"), "{id}", ch.ID))
		item := deskLine(ch.What+" · "+ch.Amount.String(), strings.Join(parts, " · "))
		if ch.Refundable {
			item.Trailing = ui.Button(c.T("support.refund"), "secondary",
				ui.Sequence(ui.SetState("/form/refundCharge", ch.ID), ui.OpenOverlay(SupportRefund)))
		}
		charges = append(charges, item)
	}
	parts = append(parts, deskSection(c, c.T("support.charges"), c.T("support.none"), charges))

	attempts := make([]*ui.Node, 0, len(d.Attempts))
	for _, a := range d.Attempts {
		attempts = append(attempts, attemptLine(c, a))
	}
	parts = append(parts, deskSection(c, c.T("support.attempts"), c.T("support.none"), attempts))

	mails := make([]*ui.Node, 0, len(d.Mails))
	for _, m := range d.Mails {
		sub := []string{c.T("support.mail." + m.Status), supportTime(m.CreatedAt)}
		if !m.SentAt.IsZero() {
			sub = append(sub, fill(c.T("support.sentAt"), "{date}", supportTime(m.SentAt)))
		}
		if m.LastError != "" {
			sub = append(sub, m.LastError)
		}
		mails = append(mails, deskLine(m.Subject, strings.Join(sub, " · ")))
	}
	parts = append(parts, deskSection(c, c.T("support.mails"), c.T("support.none"), mails))

	var profile []*ui.Node
	if p := d.Profile; p != nil {
		name := "@" + p.Username
		if p.Username == "" {
			name = c.T("support.noUsername")
		}
		facts := []string{p.Source, p.Status, fill(c.T("support.snapshots"), "{n}", strconv.Itoa(p.Snapshots))}
		if p.HasToken {
			facts = append(facts, c.T("support.tokenKept"))
		}
		profile = append(profile, deskLine(name, strings.Join(facts, " · ")))
	}
	parts = append(parts, deskSection(c, c.T("support.profile"), c.T("support.none"), profile))

	signIns := make([]*ui.Node, 0, len(d.SignIns))
	for _, s := range d.SignIns {
		state := c.T("support.ended")
		if s.Live {
			state = fill(c.T("support.liveUntil"), "{date}", supportTime(s.Until))
		}
		title := supportTime(s.At)
		for _, part := range []string{s.Device, s.Place} {
			if part != "" {
				title += " · " + part
			}
		}
		signIns = append(signIns, deskLine(title, state))
	}
	parts = append(parts, deskSection(c, c.T("support.signIns"), c.T("support.none"), signIns))
	parts = append(parts, auditList(c, c.T("support.auditOf"), d.Audit))
	return parts
}

// refundWords says a refund as staff read it: how much, when and how it
// went.
func refundWords(c Context, r billing.Refund) string {
	key := "support.refundDone"
	switch r.Status {
	case billing.RefundPending:
		key = "support.refundPending"
	case billing.RefundFailed:
		key = "support.refundFailed"
	}
	return fill(c.T(key), "{amount}", r.Amount.String(), "{date}", brand.Date(r.CreatedAt))
}

// attemptLine says a cancel attempt in the flow's own words: the reason as
// the survey put it, the offers by their titles, how it ended; a run of
// attempts left without an answer is one line with its count.
func attemptLine(c Context, a support.AttemptLine) *ui.Node {
	outcome := c.T("support.abandoned")
	if a.Outcome != "" {
		outcome = copyOr(c, "support.attemptOutcome."+a.Outcome, a.Outcome)
	}
	when := brand.Date(a.StartedAt)
	if a.Repeats > 1 {
		outcome = fill(c.T("support.abandonedTimes"), "{n}", strconv.Itoa(a.Repeats))
		if from := brand.Date(a.From); from != when {
			when = from + " – " + when
		}
	}
	head := []string{when, a.Plan, outcome}
	var said []string
	if a.Entry != "" {
		said = append(said, copyOr(c, "support.entry."+a.Entry, a.Entry))
	}
	if a.Reason != "" {
		said = append(said, fill(c.T("support.reasonGiven"), "{reason}", reasonWords(c, a.Reason)))
	}
	if a.Stars > 0 {
		said = append(said, fill(c.T("support.stars"), "{n}", strconv.Itoa(a.Stars)))
	}
	if a.Review != "" {
		said = append(said, "“"+a.Review+"”")
	}
	if len(a.OffersShown) > 0 {
		said = append(said, fill(c.T("support.offersShown"), "{offers}", offerWords(c, a.OffersShown)))
	}
	if len(a.OffersAccepted) > 0 {
		said = append(said, fill(c.T("support.offersTaken"), "{offers}", offerWords(c, a.OffersAccepted)))
	}
	return deskLine(strings.Join(head, " · "), strings.Join(said, " · "))
}

// reasonWords is a survey answer as the survey showed it
// (unsubscribe.reason.1 … .8, in retention.Reasons' order).
func reasonWords(c Context, reason string) string {
	if i := slices.Index(retention.Reasons[:], reason); i >= 0 {
		return "“" + c.T("unsubscribe.reason."+strconv.Itoa(i+1)) + "”"
	}
	return reason
}

// offerWords names offers by the titles the flow shows them under.
func offerWords(c Context, offers []string) string {
	out := make([]string, len(offers))
	for i, o := range offers {
		switch o {
		case retention.OfferGiftMonth:
			out[i] = "“" + c.T("unsubscribe.step7.offer") + "”"
		case retention.OfferPlanChange:
			out[i] = "“" + c.T("unsubscribe.step3.title") + "”"
		default:
			out[i] = o
		}
	}
	return strings.Join(out, ", ")
}

// copyOr is key's copy, or fallback when the catalogue has none (a value
// stored by a later version of the flow is shown as it is, not as a key).
func copyOr(c Context, key, fallback string) string {
	if c.Copy.Has(key) {
		return c.T(key)
	}
	return fallback
}

// supportActions are the buttons that open the action dialogs, each shown
// only when it has something to act on.
func supportActions(c Context, d support.Dossier) *ui.Node {
	refundable, plans, running, resend := supportTargets(c, d)
	row := ui.Row("sm",
		ui.If(len(refundable) > 0, ui.Button(c.T("support.refund"), "primary", ui.OpenOverlay(SupportRefund))),
		ui.If(len(plans) > 0, ui.Button(c.T("support.cancel"), "secondary", ui.OpenOverlay(SupportCancel))),
		ui.If(len(running) > 0, ui.Button(c.T("support.extend"), "secondary", ui.OpenOverlay(SupportExtend))),
		ui.If(len(resend) > 0, ui.Button(c.T("support.resend"), "secondary", ui.OpenOverlay(SupportResend))),
		ui.If(d.Account != nil, ui.Button(c.T("support.signOut"), "secondary", ui.OpenOverlay(SupportSignOut))))
	row.Wrap = true
	return ui.Stack("sm", ui.Text("heading", c.T("support.actions")), ui.Text("caption", c.T("support.actionsText")), row)
}

// supportTargets are the choices of the dialogs: charges with money left
// to refund, plans that can be canceled, plans that count (to extend),
// and what can be sent again.
func supportTargets(c Context, d support.Dossier) (refundable, plans, running, resend []ui.Option) {
	for _, ch := range d.Charges {
		if ch.Refundable {
			refundable = append(refundable, ui.Option{Value: ch.ID, Label: ch.What + " · " + ch.Amount.String(),
				Description: fill(c.T("support.left"), "{amount}", ch.Left().String(), "{date}", supportTime(ch.CreatedAt))})
		}
		if ch.Status != "failed" && ch.Status != "processing" {
			resend = append(resend, ui.Option{Value: SupportResendReceipt + ":" + ch.ID,
				Label: fill(c.T("support.resendReceipt"), "{what}", ch.What+" · "+ch.Amount.String()), Description: supportTime(ch.CreatedAt)})
		}
	}
	for _, s := range d.Subscriptions {
		if !s.MainPlan || !s.Counts {
			continue
		}
		opt := ui.Option{Value: s.ID, Label: s.Plan + " · " + s.Price.String(), Description: s.ID}
		plans = append(plans, opt)
		running = append(running, opt)
		if s.AwaitsAccount {
			resend = append(resend, ui.Option{Value: SupportResendActivation + ":" + s.ID,
				Label: fill(c.T("support.resendActivation"), "{what}", s.Plan), Description: s.ID})
		}
	}
	return refundable, plans, running, resend
}

// reasonInput is a dialog's reason: required, MinReason to MaxReason
// characters, as the desk checks it again.
func reasonInput(c Context, id string) *ui.Node {
	tooShort := fill(c.T("support.reasonShort"), "{n}", strconv.Itoa(support.MinReason))
	tooLong := fill(c.T("support.reasonLong"), "{n}", strconv.Itoa(support.MaxReason))
	return &ui.Node{Type: "textarea", ID: id, Bind: "/form/" + id, Label: c.T("support.reason"), Rows: 3,
		Rules: []ui.Rule{ui.Required(c.T("support.reasonRequired")), ui.MinLength(support.MinReason, tooShort),
			ui.MaxLength(support.MaxReason, tooLong)}}
}

func deskChoice(id, label, required string, options []ui.Option) *ui.Node {
	return &ui.Node{Type: "choice_list", ID: id, Bind: "/form/" + id, Label: label, Options: options,
		Rules: []ui.Rule{ui.Required(required)}}
}

// actionDialog is one action's modal: its form, posting action with the
// subscriber and the view's key, and a confirm button.
func actionDialog(c Context, id, action, title, confirm string, inputs ...*ui.Node) *ui.Node {
	submit := &ui.Action{Type: "submit", Name: action, Form: id, Include: []string{"/desk/email", "/desk/key", "/desk/q"}}
	children := append(inputs, ui.FormError(id), ui.Button(confirm, "primary", submit),
		ui.Button(c.T("support.close"), "tertiary", ui.CloseOverlay(id)))
	return ui.Dialog(id, "modal", title, ui.Form(id, submit, children...))
}

func supportDialogs(c Context, d support.Dossier) map[string]*ui.Node {
	refundable, plans, running, resend := supportTargets(c, d)
	out := map[string]*ui.Node{}
	if len(refundable) > 0 {
		amount := ui.TextInput("refundAmount", "text", c.T("support.amount"), c.T("support.amountPlaceholder"),
			ui.Rule{Kind: ui.RuleKindPattern, Value: `^([0-9]{1,6}(\.[0-9]{1,2})?)?$`, Message: c.T("support.amountInvalid")})
		// Only a partial refund has an amount to write.
		amount.Visible = ui.Compare("eq", ui.Operand{Path: "/form/refundKind"}, ui.Operand{Literal: SupportRefundPart})
		out[SupportRefund] = actionDialog(c, SupportRefund, "support.refund", c.T("support.refundTitle"), c.T("support.refundConfirm"),
			ui.Text("body", c.T("support.refundText")),
			deskChoice("refundCharge", c.T("support.charge"), c.T("support.chooseCharge"), refundable),
			deskChoice("refundKind", c.T("support.refundKind"), c.T("support.chooseRefundKind"), []ui.Option{
				{Value: SupportRefundFull, Label: c.T("support.refundFull"), Description: c.T("support.refundFullText")},
				{Value: SupportRefundPart, Label: c.T("support.refundPart"), Description: c.T("support.refundPartText")}}),
			amount, reasonInput(c, "refundReason"))
	}
	if len(plans) > 0 {
		out[SupportCancel] = actionDialog(c, SupportCancel, "support.cancel", c.T("support.cancelTitle"), c.T("support.cancelConfirm"),
			deskChoice("cancelSubscription", c.T("support.plan"), c.T("support.choosePlan"), plans),
			deskChoice("cancelWhen", c.T("support.when"), c.T("support.chooseWhen"), []ui.Option{
				{Value: SupportWhenPeriodEnd, Label: c.T("support.atPeriodEnd"), Description: c.T("support.atPeriodEndText")},
				{Value: SupportWhenNow, Label: c.T("support.now"), Description: c.T("support.nowText")}}),
			reasonInput(c, "cancelReason"))
	}
	if len(running) > 0 {
		days := make([]ui.Option, 0, len(support.ExtensionDays))
		for _, n := range support.ExtensionDays {
			label := fill(c.T("support.nDays"), "{n}", strconv.Itoa(n))
			if n == 1 {
				label = c.T("support.oneDay")
			}
			days = append(days, ui.Option{Value: strconv.Itoa(n), Label: label})
		}
		inputs := []*ui.Node{deskChoice("extendSubscription", c.T("support.plan"), c.T("support.choosePlan"), running),
			deskChoice("extendDays", c.T("support.days"), c.T("support.daysInvalid"), days)}
		inputs = append(inputs, extendPreview(c, d)...)
		inputs = append(inputs, reasonInput(c, "extendReason"))
		out[SupportExtend] = actionDialog(c, SupportExtend, "support.extend", c.T("support.extendTitle"), c.T("support.extendConfirm"), inputs...)
	}
	if len(resend) > 0 {
		out[SupportResend] = actionDialog(c, SupportResend, "support.resend", c.T("support.resendTitle"), c.T("support.resendConfirm"),
			deskChoice("resendWhat", c.T("support.mailToSend"), c.T("support.chooseMail"), resend), reasonInput(c, "resendReason"))
	}
	if d.Account != nil {
		out[SupportSignOut] = actionDialog(c, SupportSignOut, "support.sign_out", c.T("support.signOutTitle"), c.T("support.signOutConfirm"),
			ui.Text("body", c.T("support.signOutText")), reasonInput(c, "signOutReason"))
	}
	return out
}

// planEnd is the date a subscription of the dossier runs to (its access's
// end when canceled, else its renewal), "" for one not there.
func planEnd(d support.Dossier, id string) string {
	for _, s := range d.Subscriptions {
		switch {
		case s.ID != id:
		case s.ExpiresAt != nil:
			return brand.Date(*s.ExpiresAt)
		case !s.PeriodEnd.IsZero():
			return brand.Date(s.PeriodEnd)
		}
	}
	return ""
}

// extendPreview is the date each choice of the extend dialog moves a plan
// to, shown before staff confirm: one line per plan and number of days,
// visible when both are chosen (composed here, where the dates are known).
func extendPreview(c Context, d support.Dossier) []*ui.Node {
	var out []*ui.Node
	for _, s := range d.Subscriptions {
		if !s.MainPlan || !s.Counts || s.ExtendFrom.IsZero() {
			continue
		}
		key := "support.newRenewal"
		if s.CancelAtPeriodEnd || s.Status == billing.StatusCanceled {
			key = "support.newAccessEnd"
		}
		for _, n := range support.ExtensionDays {
			line := ui.Text("body", fill(c.T(key), "{date}", brand.Date(s.ExtendFrom.AddDate(0, 0, n)),
				"{from}", brand.Date(s.ExtendFrom)))
			line.Tone = "info"
			line.Visible = ui.And(ui.Compare("eq", ui.PathOperand("/form/extendSubscription"), ui.LiteralOperand(s.ID)),
				ui.Compare("eq", ui.PathOperand("/form/extendDays"), ui.LiteralOperand(strconv.Itoa(n))))
			out = append(out, line)
		}
	}
	return out
}

// auditList shows audit entries, newest first: who did what to whom, why,
// and how it went.
func auditList(c Context, title string, entries []support.Entry) *ui.Node {
	rows := make([]*ui.Node, 0, len(entries))
	for _, e := range entries {
		what := c.T("support.action." + e.Action)
		if e.Detail != "" {
			what += " (" + e.Detail + ")"
		}
		head := fill(c.T("support.auditLine"), "{at}", supportTime(e.At), "{staff}", e.Staff, "{what}", what, "{who}", e.Subscriber)
		sub := fill(c.T("support.auditReason"), "{reason}", e.Reason)
		if e.Target != "" {
			sub += " · " + e.Target
		}
		item := deskLine(head, sub)
		switch e.Outcome {
		case support.OutcomeFailed:
			item.Subtitle += " · " + fill(c.T("support.auditFailed"), "{problem}", e.Problem)
			item.Trailing = ui.Badge(c.T("support.outcome.failed"), "danger")
		case support.OutcomeStarted:
			item.Subtitle += " · " + c.T("support.auditUnfinished")
			item.Trailing = ui.Badge(c.T("support.outcome.started"), "warning")
		default:
			item.Trailing = ui.Badge(c.T("support.outcome.done"), "positive")
		}
		rows = append(rows, item)
	}
	return deskSection(c, title, c.T("support.auditEmpty"), rows)
}

// StudioSupportLink is the studio home's way to the support desk, for
// admins.
func StudioSupportLink(c Context) *ui.Node {
	return ui.Button(c.T("support.link"), "secondary", ui.Navigate(PathStudioSupport))
}
