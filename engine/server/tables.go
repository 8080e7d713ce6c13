package server

import (
	"fmt"
	"io"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/adaptor"

	"glimpse/engine/billing"
	"glimpse/engine/billing/sandboxpay"
	"glimpse/engine/experiment"
	"glimpse/engine/library"
	"glimpse/engine/privacy"
	"glimpse/engine/retention"
	"glimpse/engine/staff"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// The server's two tables: every screen it composes and every action it
// takes, each read on one screen. A feature adds its rows here; a name or
// path given twice is refused when the server is built (newRouteTable,
// newActionTable), so no row silently replaces another.

// route is one line of the screen table.
type route struct {
	path   string // exact path, or a prefix ending in "*" (matched in table order)
	guard  guard
	screen func(r *request) (screens.Page, error)
	// key, when set, names everything the screen depends on; the encoded
	// page is then kept and reused for requests with the same key. It
	// returns "" for a page not worth keeping (e.g. a "not found" page).
	key func(r *request) string
}

// routeTable maps paths to screens. Any path not listed serves as home.
func (s *Server) routeTable() ([]route, error) {
	rows := []route{
		{screens.PathSignIn, guestOnly, s.signInScreen, func(*request) string { return "sign-in" }},
		{screens.PathDashboard, protected, s.homeScreen, s.homeKey},
		{screens.PathPasswordSafety, protected, s.passwordSafetyScreen, nil},
		{screens.PathPrivacyData, protected, s.privacyScreen, nil},
		{screens.PathDeleteAccount, protected, s.deleteAccountScreen, nil},
		{screens.PathAccountDeleted, public, s.accountDeletedScreen, func(*request) string { return "account-deleted" }},
		{screens.PathDeletionStatus, public, s.deletionStatusScreen, nil},
		{screens.PathAnalytics, protected, s.analyticsScreen, nil},
		{screens.PathCourse, protected, s.courseScreen, nil},
		{screens.PathBilling, protected, s.billingScreen, nil},
		{screens.PathReceipts + "*", protected, s.receiptScreen, nil},
		{screens.PathUnsubscribe, protected, s.unsubscribeStart, nil},
		{screens.PathUnsubscribe + "/*", protected, s.unsubscribeScreen, nil},
		{screens.PathInsights, protected, s.insightsScreen, byPath},
		{screens.PathTopTrends, protected, s.trendsScreen, byPath},
		{screens.PathTopHacks, protected, s.hacksScreen, byPath},
		{screens.PathArticles + "/*", protected, s.articlesScreen, byPath},
		{screens.PathNews, protected, s.newsScreen, byPath},
		{screens.PathNews + "/*", protected, s.newsPostScreen, s.newsPostKey},
		{screens.PathPrivacy, public, s.legalScreen("privacy", func() library.Legal { return s.library().Privacy }), byPath},
		{screens.PathTerms, public, s.legalScreen("terms", func() library.Legal { return s.library().Terms }), byPath},
		{screens.PathPasswordRecovery, public, s.passwordRecoveryScreen, func(*request) string { return "password-recovery" }},
		{screens.PathAccessRecovery, public, s.accessRecoveryScreen, nil},
		{screens.PathCheckout, public, s.checkoutScreen, nil},
		{screens.PathCheckoutDone, public, s.checkoutDoneScreen, nil},
		{screens.PathUpdateCard, protected, s.updateCardScreen, nil},
		{screens.PathConfirmPayment, public, s.confirmPaymentScreen, nil},
		{screens.PathUnsubscription, public, s.cancelPage, cancelPageKey},
		{screens.PathStudio, guardStaff, s.studioHome, nil},
		{screens.PathStudioNew + "*", guardStaff, s.studioEdit, nil},
		{screens.PathStudioEdit + "*", guardStaff, s.studioEdit, nil},
		{screens.PathStudioPreview + "*", guardStaff, s.studioPreview, nil},
		{screens.PathStudioRevision + "*", guardStaff, s.studioRevision, nil},
		{screens.PathStudioCopy + "*", guardStaff, s.studioCopy, nil},
		{screens.PathStudioExperiments, guardStaff, s.studioExperiments, nil},
		{screens.PathStudioExperimentNew, guardStaff, s.studioExperimentEdit, nil},
		{screens.PathStudioExperimentEdit + "*", guardStaff, s.studioExperimentEdit, nil},
		{screens.PathStudioExperimentResults + "*", guardStaff, s.studioExperimentResults, nil},
		{screens.PathStudioSupport, guardSupport, s.supportDesk, nil},
	}
	if s.devMailboxOn() {
		rows = append(rows,
			route{screens.PathDevMail, guardDevMailbox, s.devMailboxScreen, nil},
			route{screens.PathDevMail + "/*", guardDevMailbox, s.devMailScreen, nil})
	}
	return newRouteTable(rows)
}

// actionSpec is one line of the action table: the request type (its Go
// types and go-playground/validator tags bound what the server will take),
// whether the values are a form's, and the handler.
type actionSpec struct {
	newRequest func() any
	// form, when set, says the values are those of the form on the screen at
	// the body's path whose submit posts this action: they are checked
	// against that form's rules, with the messages the screen shows, before
	// the struct tags (checkForm). The tags then only bound sizes.
	form   bool
	handle func(r *request, in any) (*ui.Result, error)
	// upload, when set, takes the raw request body (a file) instead.
	upload func(r *request, body io.Reader) (*ui.Result, error)
	// staff, when set, is the staff role the action needs (staff.RoleEditor
	// admits editors and admins; staff.RoleTester any staff member but
	// support; staff.RoleExperimenter testers and admins; staff.RoleSupport
	// support and admins). The handler then finds the
	// member in request.member; anyone else is refused before the body is
	// read.
	staff string
}

// actionRow names an action of the table.
type actionRow struct {
	name string
	actionSpec
}

// actionTable maps action names to their handlers.
func (s *Server) actionTable() (map[string]actionSpec, error) {
	return newActionTable([]actionRow{
		{"session.sign_in", actionSpec{newRequest: empty[signInRequest], handle: s.signIn, form: true}},
		{"session.from_url", actionSpec{newRequest: empty[fromURLRequest], handle: s.signInFromURL}},
		{"session.sign_out", actionSpec{newRequest: noValues, handle: s.signOut}},
		{"event.track", actionSpec{newRequest: empty[trackRequest], handle: s.track}},
		{"breach.check", actionSpec{newRequest: noValues, handle: s.checkBreaches}},
		{screens.ActionRequestExport, actionSpec{newRequest: noValues, handle: s.requestExport}},
		{screens.ActionDownloadExport, actionSpec{newRequest: noValues, handle: s.downloadExportAction}},
		{screens.ActionDisconnectInstagram, actionSpec{newRequest: noValues, handle: s.disconnectInstagram}},
		{screens.ActionDeleteAccount, actionSpec{newRequest: empty[deleteAccountRequest], handle: s.deleteAccount, form: true}},
		{"profile.upload_export", actionSpec{upload: s.uploadExport}},
		{"account.restore_password", actionSpec{newRequest: empty[emailRequest], handle: s.restorePassword, form: true}},
		{"account.reset_password", actionSpec{newRequest: empty[resetPasswordRequest], handle: s.resetPassword, form: true}},
		{"account.send_activation", actionSpec{newRequest: empty[emailRequest], handle: s.sendActivation, form: true}},
		{"account.create", actionSpec{newRequest: empty[createAccountRequest], handle: s.createAccount, form: true}},
		{"checkout.pay", actionSpec{newRequest: empty[checkoutRequest], handle: s.checkoutPay, form: true}},
		{screens.ActionResendPurchaseMail, actionSpec{newRequest: noValues, handle: s.resendPurchaseMail}},
		{screens.ActionChangePurchaseMail, actionSpec{newRequest: empty[purchaseMailRequest], handle: s.changePurchaseEmail, form: true}},
		{"course.purchase", actionSpec{newRequest: noValues, handle: s.purchase(billing.FamilyPDFCourse)}},
		{"plan.buy_report", actionSpec{newRequest: noValues, handle: s.purchase(billing.FamilyProfileReport)}},
		{"plan.buy_playbook", actionSpec{newRequest: noValues, handle: s.purchase(billing.FamilyReelsPlaybook)}},
		{"plan.cancel_request", actionSpec{newRequest: noValues, handle: s.cancelRequest}},
		{"plan.resume", actionSpec{newRequest: noValues, handle: s.resumePlan}},
		{"plan.change", actionSpec{newRequest: empty[changePlanRequest], handle: s.changePlan, form: true}},
		{"plan.undo_change", actionSpec{newRequest: noValues, handle: s.undoPlanChange}},
		{"plan.update_card", actionSpec{newRequest: empty[updateCardRequest], handle: s.updateCard}},
		{"checkout.confirm", actionSpec{newRequest: empty[confirmPaymentRequest], handle: s.confirmPayment}},
		{screens.ActionCancelFromLink, actionSpec{newRequest: noValues, handle: s.cancelFromLink}},
		{screens.ActionAskCancelLink, actionSpec{newRequest: empty[cancelLinkAskRequest], handle: s.askCancelLink, form: true}},
		{"unsubscribe.leave", actionSpec{newRequest: empty[unsubscribeLeaveRequest], handle: s.unsubscribeLeave}},
		{"unsubscribe.reason", actionSpec{newRequest: empty[unsubscribeReasonRequest], handle: s.unsubscribeReason, form: true}},
		{"unsubscribe.review", actionSpec{newRequest: empty[unsubscribeReviewRequest], handle: s.unsubscribeReview, form: true}},
		{"unsubscribe.change_plan", actionSpec{newRequest: empty[unsubscribeAttemptRequest], handle: s.unsubscribeOffer(retention.OfferPlanChange)}},
		{"unsubscribe.gift_month", actionSpec{newRequest: empty[unsubscribeAttemptRequest], handle: s.unsubscribeOffer(retention.OfferGiftMonth)}},
		{"unsubscribe.cancel", actionSpec{newRequest: empty[unsubscribeAttemptRequest], handle: s.unsubscribeCancel}},
		{"studio.sign_in", actionSpec{newRequest: empty[studioSignInRequest], handle: s.studioSignIn, form: true}},
		{"studio.sign_out", actionSpec{newRequest: noValues, handle: s.studioSignOut}},
		{"studio.save", actionSpec{newRequest: empty[studioItemRequest], handle: s.studioSave, staff: staff.RoleEditor, form: true}},
		{"studio.publish", actionSpec{newRequest: empty[studioItemRequest], handle: s.studioPublish, staff: staff.RoleEditor}},
		{"studio.unpublish", actionSpec{newRequest: empty[studioItemRequest], handle: s.studioUnpublish, staff: staff.RoleEditor}},
		{"studio.restore", actionSpec{newRequest: empty[studioItemRequest], handle: s.studioRestore, staff: staff.RoleEditor}},
		{"studio.schedule", actionSpec{newRequest: empty[studioScheduleRequest], handle: s.studioSchedule, staff: staff.RoleEditor, form: true}},
		{"studio.cancel_schedule", actionSpec{newRequest: empty[studioCancelScheduleRequest], handle: s.studioCancelSchedule, staff: staff.RoleEditor}},
		// Any staff member: a preview changes nothing, and testers may look
		// at every item.
		{"studio.find", actionSpec{newRequest: empty[studioFindRequest], handle: s.studioFind, staff: staff.RoleTester}},
		{"studio.preview", actionSpec{newRequest: empty[studioPreviewRequest], handle: s.studioLivePreview, staff: staff.RoleTester}},
		{"experiment.save", actionSpec{newRequest: empty[experimentRequest], handle: s.experimentsOn(s.experimentSave), staff: staff.RoleExperimenter, form: true}},
		{"experiment.preview", actionSpec{newRequest: empty[experimentPreviewRequest], handle: s.experimentsOn(s.experimentLivePreview), staff: staff.RoleExperimenter}},
		{"experiment.start", actionSpec{newRequest: empty[experimentIDRequest], handle: s.experimentsOn(s.experimentStatus(experiment.ActionStart)), staff: staff.RoleExperimenter}},
		{"experiment.pause", actionSpec{newRequest: empty[experimentIDRequest], handle: s.experimentsOn(s.experimentStatus(experiment.ActionPause)), staff: staff.RoleExperimenter}},
		{"experiment.stop", actionSpec{newRequest: empty[experimentIDRequest], handle: s.experimentsOn(s.experimentStatus(experiment.ActionStop)), staff: staff.RoleExperimenter}},
		// The support desk: support staff and admins (staff.RoleSupport).
		{"support.find", actionSpec{newRequest: empty[supportFindRequest], handle: s.supportOn(s.supportFind), staff: staff.RoleSupport, form: true}},
		{"support.refund", actionSpec{newRequest: empty[supportRefundRequest], handle: s.supportOn(s.supportRefund), staff: staff.RoleSupport, form: true}},
		{"support.cancel", actionSpec{newRequest: empty[supportCancelRequest], handle: s.supportOn(s.supportCancel), staff: staff.RoleSupport, form: true}},
		{"support.extend", actionSpec{newRequest: empty[supportExtendRequest], handle: s.supportOn(s.supportExtend), staff: staff.RoleSupport, form: true}},
		{"support.resend", actionSpec{newRequest: empty[supportResendRequest], handle: s.supportOn(s.supportResend), staff: staff.RoleSupport, form: true}},
		{"support.sign_out", actionSpec{newRequest: empty[supportSignOutRequest], handle: s.supportOn(s.supportSignOut), staff: staff.RoleSupport, form: true}},
	})
}

// request makes an action's empty request of type T.
func empty[T any]() any { return new(T) }

// newRouteTable refuses a path given twice.
func newRouteTable(rows []route) ([]route, error) {
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		if seen[r.path] {
			return nil, fmt.Errorf("route table: %q is listed twice", r.path)
		}
		seen[r.path] = true
	}
	return rows, nil
}

// newActionTable refuses a name given twice.
func newActionTable(rows []actionRow) (map[string]actionSpec, error) {
	table := make(map[string]actionSpec, len(rows))
	for _, r := range rows {
		if _, dup := table[r.name]; dup {
			return nil, fmt.Errorf("action table: %q is listed twice", r.name)
		}
		table[r.name] = r.actionSpec
	}
	return table, nil
}

// endpoint is one line of the third table: what is neither a screen nor an
// action (the renderer's two calls themselves, files, webhooks, the payment
// sandbox's page, health), each with the handlers that run for it, in
// order. Every path the server answers is in one of the three tables.
type endpoint struct {
	method   string
	path     string
	handlers []fiber.Handler
}

// endpointTable lists the endpoints, matched in order: the app's catch-all
// GET comes last.
func (s *Server) endpointTable() []endpoint {
	get := func(path string, h ...fiber.Handler) endpoint { return endpoint{fiber.MethodGet, path, h} }
	post := func(path string, h ...fiber.Handler) endpoint { return endpoint{fiber.MethodPost, path, h} }
	rows := []endpoint{
		get("/healthz", func(c fiber.Ctx) error { return c.SendString("ok") }),
		get("/readyz", s.handleReady),
		get("/ui/screen", s.checkSchemaVersion, s.handleScreen),
		get(PathAudience, s.checkSchemaVersion, s.serveAudience),
		post("/ui/actions/:name", s.checkSchemaVersion, s.checkSameOrigin, s.checkCSRF, s.handleAction),
		// Without this the app's catch-all GET below would answer a GET of
		// an action as an unknown file (404) instead of a wrong method.
		get("/ui/actions/:name", s.checkSchemaVersion, func(c fiber.Ctx) error {
			c.Set(fiber.HeaderAllow, fiber.MethodPost)
			return fiber.ErrMethodNotAllowed
		}),
		get("/static/*", s.files.ServeStatic),
		get("/img", s.serveImage),
		post(PathErrorTunnel, s.checkSameOrigin, s.tunnelErrors),
		post(PathStripeWebhook, s.stripeWebhook), // signed by Stripe, so no CSRF check (stripe_webhook.go)
		get(PathInstagramConnect, s.connectInstagram),
		get(PathInstagramCallback, s.instagramCallback),
		// Meta's callbacks, signed by Meta, so no CSRF check (privacy.go).
		post(PathInstagramDataDeletion, s.instagramDataDeletion),
		post(PathInstagramDeauthorize, s.instagramDeauthorize),
		get(privacy.DownloadPath, s.downloadExport),
		get(PathProfileReport, s.serveProfileReport),
		get(screens.PathReceiptFiles+":file", s.serveReceiptPDF),
		get(PathLessonPDFs+":file", s.serveLessonPDF),
		get(PathReelsPlaybook, s.serveReelsPlaybook),
		get("/assets/*", s.files.ServeAsset),
	}
	if s.Billing != nil && s.Billing.Provider().Name() == "sandbox" {
		// The sandbox's hosted payment page, a provider's page of its own
		// (engine/billing/sandboxpay); its form posts to itself.
		page := adaptor.HTTPHandler(&sandboxpay.Handler{Billing: s.Billing, Brands: s.Brands})
		rows = append(rows,
			get(sandboxpay.PathStatic+":file", page),
			get(billing.PathSandboxPay+":session", page),
			post(billing.PathSandboxPay+":session", s.checkSameOrigin, page))
	}
	return append(rows, get("/*", s.serveApp))
}
