package screens

import (
	"strconv"
	"strings"
	"time"

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

// SupportState is the desk: the address looked up (if any), what was found
// (nil when nothing was, or nothing was asked), the audit log to show, and
// the key that names this view's requests.
type SupportState struct {
	Staff   string
	Email   string
	Dossier *support.Dossier
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

// SupportDesk is the support desk: a search by email; for a subscriber
// found, what Glimpse holds of them on the left and the actions and their
// audit entries on the right (stacked on a phone); else the audit log.
func SupportDesk(c Context, s SupportState) Page {
	find := ui.Form(SupportFindForm, ui.Submit("support.find", SupportFindForm),
		ui.TextInput("email", "email", c.T("support.findLabel"), c.T("signIn.emailPlaceholder"), ui.Email(c.T("signIn.wrongEmail"))),
		ui.FormError(SupportFindForm),
		ui.Button(c.T("support.find"), "primary", ui.Submit("support.find", SupportFindForm)))
	top := []*ui.Node{ui.Text("caption", fill(c.T("studio.signedInAs"), "{who}", s.Staff)), find}
	page := Page{State: map[string]any{"form": map[string]any{"email": s.Email},
		"desk": map[string]any{"email": s.Email, "key": s.Key}}}
	var body *ui.Node
	switch {
	case s.Dossier != nil:
		page.Overlays = supportDialogs(c, *s.Dossier)
		form := page.State["form"].(map[string]any)
		for k, v := range supportFormState() {
			form[k] = v
		}
		body = ui.Split("xl", ui.Stack("lg", dossierParts(c, *s.Dossier)...),
			ui.Stack("lg", supportActions(c, *s.Dossier), auditList(c, c.T("support.auditOf"), s.Dossier.Audit)))
	case s.Email != "":
		body = ui.Stack("lg", &ui.Node{Type: "empty_state", Title: c.T("support.notFound"), Icon: "search"},
			auditList(c, c.T("support.audit"), s.Audit))
	default:
		body = auditList(c, c.T("support.audit"), s.Audit)
	}
	children := append(top, body)
	if s.Admin {
		children = append(children, ui.Link(c.T("support.toStudio"), ui.Navigate(PathStudio)))
	}
	children = append(children, ui.Button(c.T("studio.signOut"), "secondary", ui.Call("studio.sign_out")))
	scr := ui.Screen("studio-support", c.T("support.title"), ui.Stack("md", children...))
	scr.Header = &ui.Node{Type: "header", Title: c.T("support.title")}
	scr.Width = "wide"
	page.Screen = scr
	return page
}

// supportFormState is the dialogs' inputs, empty.
func supportFormState() map[string]any {
	return map[string]any{"refundCharge": "", "refundKind": "", "refundAmount": "", "refundReason": "",
		"cancelSubscription": "", "cancelWhen": SupportWhenPeriodEnd, "cancelReason": "",
		"extendSubscription": "", "extendDays": "", "extendReason": "",
		"resendWhat": "", "resendReason": "", "signOutReason": ""}
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

func dossierParts(c Context, d support.Dossier) []*ui.Node {
	account := c.T("support.noAccount")
	if d.Account != nil {
		account = fill(c.T("support.accountSince"), "{date}", supportTime(d.Account.CreatedAt))
		if d.Account.Disabled {
			account += " · " + c.T("support.disabled")
		}
	}
	parts := []*ui.Node{ui.Stack("xs", ui.Text("title", d.Email), ui.Text("body", account))}

	subs := make([]*ui.Node, 0, len(d.Subscriptions))
	for _, s := range d.Subscriptions {
		facts := []string{c.T("support.status." + s.Status)}
		switch {
		case s.Suspended:
			facts = append(facts, c.T("support.suspended"))
		case s.ExpiresAt != nil:
			facts = append(facts, fill(c.T("support.endsOn"), "{date}", supportTime(*s.ExpiresAt)))
		case !s.PeriodEnd.IsZero():
			facts = append(facts, fill(c.T("support.renewsOn"), "{date}", supportTime(s.PeriodEnd)))
		}
		if s.AwaitsAccount {
			facts = append(facts, c.T("support.awaitsAccount"))
		}
		if s.Card != "" {
			facts = append(facts, s.Card)
		}
		facts = append(facts, s.ID)
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
		sub := []string{supportTime(ch.CreatedAt), c.T("support.charge." + ch.Status)}
		if ch.Refunded.Amount > 0 {
			sub = append(sub, fill(c.T("support.refunded"), "{amount}", ch.Refunded.String()))
		}
		sub = append(sub, ch.ID)
		item := deskLine(ch.What+" · "+ch.Amount.String(), strings.Join(sub, " · "))
		if ch.Refundable {
			item.Trailing = ui.Button(c.T("support.refund"), "secondary",
				ui.Sequence(ui.SetState("/form/refundCharge", ch.ID), ui.OpenOverlay(SupportRefund)))
		}
		charges = append(charges, item)
	}
	parts = append(parts, deskSection(c, c.T("support.charges"), c.T("support.none"), charges))

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

	attempts := make([]*ui.Node, 0, len(d.Attempts))
	for _, a := range d.Attempts {
		outcome := a.Outcome
		if outcome == "" {
			outcome = c.T("support.abandoned")
		}
		var said []string
		if a.Reason != "" {
			said = append(said, fill(c.T("support.reasonGiven"), "{reason}", a.Reason))
		}
		if a.Stars > 0 {
			said = append(said, fill(c.T("support.stars"), "{n}", strconv.Itoa(a.Stars)))
		}
		if a.Review != "" {
			said = append(said, "“"+a.Review+"”")
		}
		if len(a.OffersShown) > 0 {
			said = append(said, fill(c.T("support.offersShown"), "{offers}", strings.Join(a.OffersShown, ", ")))
		}
		if len(a.OffersAccepted) > 0 {
			said = append(said, fill(c.T("support.offersTaken"), "{offers}", strings.Join(a.OffersAccepted, ", ")))
		}
		attempts = append(attempts, deskLine(supportTime(a.StartedAt)+" · "+a.Plan+" · "+outcome, strings.Join(said, " · ")))
	}
	parts = append(parts, deskSection(c, c.T("support.attempts"), c.T("support.none"), attempts))

	var profile []*ui.Node
	if p := d.Profile; p != nil {
		name := p.Username
		if name == "" {
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
		signIns = append(signIns, deskLine(supportTime(s.At), state))
	}
	parts = append(parts, deskSection(c, c.T("support.signIns"), c.T("support.none"), signIns))
	return parts
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
	return ui.Stack("sm", ui.Text("heading", c.T("support.actions")), ui.Text("body", c.T("support.actionsText")), row)
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
	submit := &ui.Action{Type: "submit", Name: action, Form: id, Include: []string{"/desk/email", "/desk/key"}}
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
		days := ui.TextInput("extendDays", "text", c.T("support.days"), "", ui.Required(c.T("support.daysInvalid")),
			ui.Rule{Kind: ui.RuleKindPattern, Value: `^[0-9]{1,2}$`, Message: c.T("support.daysInvalid")})
		out[SupportExtend] = actionDialog(c, SupportExtend, "support.extend", c.T("support.extendTitle"), c.T("support.extendConfirm"),
			deskChoice("extendSubscription", c.T("support.plan"), c.T("support.choosePlan"), running), days, reasonInput(c, "extendReason"))
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
