package screens

import (
	"net/url"

	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// Paths of billing history and of one receipt (the number follows).
const (
	PathBilling  = "/dashboard/billing"
	PathReceipts = "/dashboard/receipts/"
)

// PurchaseDoneQuery marks a receipt opened right after its purchase: the
// screen then says the payment went through and what to do next.
const PurchaseDoneQuery = "purchase=done"

// PathReceiptFiles is where a receipt's PDF is served: its number and
// ".pdf" follow.
const PathReceiptFiles = "/files/receipts/"

// ReceiptPDFPath is the PDF of one receipt.
func ReceiptPDFPath(number string) string { return PathReceiptFiles + url.PathEscape(number) + ".pdf" }

// ReceiptPath is the screen of one receipt.
func ReceiptPath(number string) string { return PathReceipts + url.PathEscape(number) }

// ReceiptState is one receipt as shown, every value already formatted.
type ReceiptState struct {
	Number string
	Item   string // what was bought, in the brand's words
	Kind   string // billing.ReceiptPurchase, …
	Family string // the add-on's family, "" for a plan
	Amount string
	Date   string
	Card   string // "Visa ••4242"
	Status string // billing.HistoryPaid, …
	// Period is the service period a plan's charge pays for ("" for an
	// add-on); Refunded what was given back since, with its date.
	Period, Refunded string
	// Operator is the business that sold it (configuration); the support
	// address is the brand's.
	Operator string
	Email    string // where the receipt was mailed
	// JustBought is the screen a purchase lands on: it says the payment
	// went through and offers what was bought.
	JustBought bool
	// ReportPending is a profile report bought before the profile's first
	// analysis: instead of its download, the receipt says it is mailed
	// once there is one, and leads to Analytics.
	ReportPending bool
}

// historyTone is the badge tone of a charge's status.
func historyTone(status string) string {
	switch status {
	case billing.HistoryPaid:
		return "positive"
	case billing.HistoryFailed:
		return "danger"
	case billing.HistoryDisputed:
		return "warning"
	case billing.HistoryPending:
		return "info"
	}
	return "neutral"
}

// nextStep is what a bought add-on offers at once: the course opens, the
// PDFs download.
func nextStep(c Context, family string) *ui.Node {
	var action *ui.Action
	switch family {
	case billing.FamilyPDFCourse:
		action = ui.Navigate(PathCourse)
	case billing.FamilyProfileReport:
		action = ui.Download(PathProfileReport, "profile-report.pdf")
	case billing.FamilyReelsPlaybook:
		action = ui.Download(PathReelsPlaybook, "reels-playbook.pdf")
	default:
		return nil
	}
	return ui.Button(c.T("purchase.open."+family), "primary", action)
}

// Receipt is one charge's receipt: what was bought, the amount, the date,
// the card, its status now, the seller and where to ask about it. Opened
// right after a purchase it first says the payment went through and offers
// what was bought. A nil receipt is the "not found" page.
func Receipt(c Context, r *ReceiptState) Page {
	back := ui.Navigate(PathBilling)
	if r == nil {
		return Page{Screen: SubPage(c, "receipt", c.T("receipt.title"), back,
			&ui.Node{Type: "empty_state", Title: c.T("receipt.notFound"), Icon: "alert",
				Action: ui.Navigate(PathBilling), ActionLabel: c.T("receipt.history")})}
	}
	var children []*ui.Node
	if r.JustBought {
		done := &ui.Node{Type: "banner", Tone: "positive", Title: c.T("purchase.done"),
			Text: fill(c.T("purchase.doneText"), "{price}", r.Amount, "{card}", r.Card, "{email}", r.Email)}
		switch next := nextStep(c, r.Family); {
		case r.ReportPending && r.Family == billing.FamilyProfileReport:
			done.Children = pendingReportStep(c, r.Family, r.Email)
		case next != nil:
			done.Children = []*ui.Node{ui.Text("body", c.T("purchase.next."+r.Family)), next}
		}
		children = append(children, done)
	}
	row := func(label, value string) *ui.Node {
		return &ui.Node{Type: "list_item", Title: label, Subtitle: value}
	}
	details := ui.List(true,
		row(c.T("receipt.item"), r.Item),
		row(c.T("receipt.kind"), c.T("receipt.kind."+r.Kind)),
		row(c.T("receipt.amount"), r.Amount),
		row(c.T("receipt.date"), r.Date),
		ui.If(r.Period != "", row(c.T("receipt.period"), r.Period)),
		ui.If(r.Card != "", row(c.T("receipt.card"), r.Card)),
		ui.If(r.Refunded != "", row(c.T("receipt.refunded"), r.Refunded)),
		&ui.Node{Type: "list_item", Title: c.T("receipt.status"),
			Trailing: ui.Badge(c.T("billing.status."+r.Status), historyTone(r.Status))},
		row(c.T("receipt.seller"), fill(c.T("receipt.sellerText"), "{operator}", r.Operator, "{brand}", c.Brand.Name)),
	)
	details.Label = fill(c.T("receipt.number"), "{number}", r.Number)
	children = append(children,
		ui.Card(nil,
			ui.Text("caption", c.Brand.Name),
			ui.Text("heading", fill(c.T("receipt.number"), "{number}", r.Number)),
			details,
		),
		ui.Button(c.T("receipt.download"), "secondary", ui.Download(ReceiptPDFPath(r.Number), "receipt-"+r.Number+".pdf")),
		ui.Text("caption", fill(c.T("receipt.support"), "{support}", c.Brand.SupportEmail)),
		ui.Button(c.T("receipt.contact"), "secondary", ui.OpenURL("mailto:"+c.Brand.SupportEmail+"?subject="+
			url.PathEscape(fill(c.T("receipt.number"), "{number}", r.Number)), false)),
		ui.Link(c.T("receipt.history"), ui.Navigate(PathBilling)),
	)
	return Page{Screen: SubPage(c, "receipt", c.T("receipt.title"), back, ui.Stack("md", children...))}
}

// HistoryLineView is one charge in billing history, formatted.
type HistoryLineView struct {
	Date    string
	Item    string
	Amount  string
	Status  string // billing.HistoryPaid, …
	Receipt string // its number; "" when it has none (failed)
	// Refunded is what was given back ("" for nothing), last on RefundedOn.
	Refunded, RefundedOn string
}

// BillingHistory lists the subscriber's charges, newest first: what each
// paid for, when, how much and its status; each one paid opens its receipt.
func BillingHistory(c Context, lines []HistoryLineView) Page {
	children := []*ui.Node{ui.Text("body", c.T("billing.intro"))}
	if len(lines) == 0 {
		children = append(children, &ui.Node{Type: "empty_state", Title: c.T("billing.empty"), Icon: "clock"})
	} else {
		rows := make([]*ui.Node, 0, len(lines))
		for _, l := range lines {
			subtitle := fill(c.T("billing.line"), "{date}", l.Date, "{amount}", l.Amount)
			if l.Refunded != "" {
				subtitle += " · " + fill(c.T("billing.refundedOn"), "{amount}", l.Refunded, "{date}", l.RefundedOn)
			}
			item := &ui.Node{Type: "list_item", Title: l.Item, Subtitle: subtitle,
				Trailing: ui.Badge(c.T("billing.status."+l.Status), historyTone(l.Status))}
			if l.Receipt != "" {
				item.Action = ui.Navigate(ReceiptPath(l.Receipt))
			}
			rows = append(rows, item)
		}
		list := ui.List(true, rows...)
		list.Label = c.T("billing.title")
		children = append(children, list)
	}
	return Page{Screen: SubPage(c, "billing", c.T("billing.title"), nil, ui.Stack("md", children...))}
}
