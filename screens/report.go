package screens

import "glimpse/engine/ui"

// The profile report is made from the profile's analysis. Bought before
// the first one, it is mailed as soon as there is one (engine/app
// deliverProfileReport); until then nothing offers to download it, and
// every place that sells or shows it says when it comes and where the
// analysis starts.

// ownedButton is what an owned add-on's card offers: its download or page,
// or, for a report whose profile is not analysed yet, when it comes and
// the way to Analytics.
func ownedButton(c Context, o Offer) *ui.Node {
	key := "plan.offer." + o.Family
	if o.Pending {
		return ui.Stack("sm",
			ui.Text("caption", c.T(key+".pending")),
			ui.Button(c.T(key+".analyse"), "secondary", ui.Sequence(ui.CloseOverlay(MyPlanOverlay), ui.Navigate(PathAnalytics))))
	}
	return ui.Button(c.T(key+".owned"), "secondary", ownedAction(o.Family))
}

// pendingReportStep is what a receipt just paid for a report whose profile
// is not analysed yet offers: when the report comes, and Analytics.
func pendingReportStep(c Context, family, email string) []*ui.Node {
	return []*ui.Node{
		ui.Text("body", fill(c.T("purchase.nextPending."+family), "{email}", email)),
		ui.Button(c.T("purchase.analyse"), "primary", ui.Navigate(PathAnalytics)),
	}
}

// reportPendingNote tells an owner of the profile report on Analytics, before
// the first analysis, that the report is mailed once it is ready; nil
// unless pending.
func reportPendingNote(c Context, pending bool) *ui.Node {
	if !pending {
		return nil
	}
	return &ui.Node{Type: "banner", Tone: "info", Text: c.T("analytics.reportPending")}
}
