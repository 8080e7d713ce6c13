package server

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// Meta's Instagram Login callbacks, set in the app dashboard's Business
// login settings (docs/privacy.md).
const (
	PathInstagramDataDeletion = "/instagram/data-deletion"
	PathInstagramDeauthorize  = "/instagram/deauthorize"
)

// deleteAccountRequest is the deletion form; the screen's rules say what
// it needs, the tag bounds what is read.
type deleteAccountRequest struct {
	Password string `json:"password" validate:"max=1024"`
}

func (s *Server) privacyScreen(r *request) (screens.Page, error) {
	state, err := s.privacyState(r)
	if err != nil {
		return screens.Page{}, err
	}
	return screens.PrivacyData(r.copy, state), nil
}

func (s *Server) privacyState(r *request) (screens.PrivacyDataState, error) {
	ctx := r.fiber.Context()
	st := screens.PrivacyDataState{Email: r.principal.User.Email}
	e, ok, err := s.Privacy.LatestExport(ctx, r.principal.User.ID)
	if err != nil {
		return st, err
	}
	if ok {
		switch e.Status {
		case privacy.ExportQueued:
			st.Export = screens.ExportPreparing
		case privacy.ExportReady:
			st.Export, st.ExportReadyAt, st.ExportExpires = screens.ExportReady, brand.DateTime(e.ReadyAt), brand.Date(e.ExpiresAt)
			st.ExportSize = formatSize(e.Size)
		default:
			st.Export = screens.ExportFailed
		}
	}
	p, err := s.Profiles.Get(ctx, r.principal.User.ID)
	if err != nil {
		return st, err
	}
	st.InstagramConnected = p.Status != profile.StatusIdle || p.Source != ""
	st.Instagram = p.Username
	return st, nil
}

// formatSize is a size in kB or MB, as people read file sizes.
func formatSize(n int64) string {
	if n < 1000*1000 {
		return strconv.FormatInt(max(1, (n+999)/1000), 10) + " kB"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// requestExport queues the export; the screen then shows it being prepared.
func (s *Server) requestExport(r *request, _ any) (*ui.Result, error) {
	if !r.authorised {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	_, err := s.Privacy.RequestExport(r.fiber.Context(), r.principal.User.ID, r.brand.Key)
	if err != nil && !errors.Is(err, privacy.ErrExportRecent) {
		return nil, err
	}
	return s.privacyResult(r)
}

func (s *Server) privacyResult(r *request) (*ui.Result, error) {
	state, err := s.privacyState(r)
	if err != nil {
		return nil, err
	}
	return s.screenResult(r, screens.PrivacyData(r.copy, state))
}

// downloadExportAction mints a short-lived key for the ready export and
// has the browser fetch it.
func (s *Server) downloadExportAction(r *request, _ any) (*ui.Result, error) {
	if !r.authorised {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	key, err := s.Privacy.DownloadKey(r.fiber.Context(), r.principal.User.ID)
	if errors.Is(err, privacy.ErrExportLink) {
		return s.privacyResult(r)
	}
	if err != nil {
		return nil, err
	}
	return ui.Effects(ui.Download(privacy.DownloadPath+"?key="+key, exportFilename(s.Clock.Now().Format("2006-01-02")))), nil
}

func exportFilename(date string) string { return "glimpse-data-" + date + ".zip" }

// downloadExport sends the ZIP a key opens to the signed-in person it was
// made for. The key is in the query, which the access log redacts; signed
// out, the person signs in and comes back (signInPath).
func (s *Server) downloadExport(c fiber.Ctx) error {
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	key := c.Query("key")
	if !r.signedIn {
		// The mailed link opened signed out: sign-in comes back here.
		if key == "" || len(key) > 128 {
			return c.Redirect().To(screens.PathSignIn)
		}
		return c.Redirect().To(signInPath(privacy.DownloadPath + "?key=" + url.QueryEscape(key)))
	}
	e, data, err := s.Privacy.Download(c.Context(), r.principal.User.ID, key)
	if errors.Is(err, privacy.ErrExportLink) {
		return engine.Errorf(engine.CodeNotFound, "%s", r.copy.T("privacyData.linkExpired"))
	}
	if err != nil {
		return err
	}
	c.Set("Content-Type", "application/zip")
	c.Set("Content-Disposition", `attachment; filename="`+exportFilename(e.ReadyAt.Format("2006-01-02"))+`"`)
	c.Set("Cache-Control", "private, no-store")
	return c.Send(data)
}

// disconnectInstagram deletes the connected profile and what was taken
// from it.
func (s *Server) disconnectInstagram(r *request, _ any) (*ui.Result, error) {
	if !r.authorised {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	if err := s.Privacy.DisconnectInstagram(r.fiber.Context(), r.principal.User.ID); err != nil {
		return nil, err
	}
	return s.privacyResult(r)
}

func (s *Server) deleteAccountScreen(r *request) (screens.Page, error) {
	st := screens.DeleteAccountState{Email: r.principal.User.Email, TaxYears: s.Privacy.TaxPeriodYears()}
	if r.authorised && r.mainSub.Status == billing.StatusActive {
		st.Plan = billing.Describe(r.mainSub.PlanCode).Name
	}
	return screens.DeleteAccount(r.copy, st), nil
}

// deleteAccount deletes the account (privacy.Service.DeleteAccount); this
// browser's cookie goes with the sessions.
func (s *Server) deleteAccount(r *request, in any) (*ui.Result, error) {
	if !r.signedIn {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	req := in.(*deleteAccountRequest)
	err := s.Privacy.DeleteAccount(r.fiber.Context(), privacy.DeleteRequest{UserID: r.principal.User.ID,
		Password: req.Password, IP: r.fiber.IP()})
	switch {
	case errors.Is(err, privacy.ErrWrongPassword):
		return nil, &engine.Error{Code: engine.CodeInvalid, Err: err,
			Fields: map[string]string{"password": r.copy.T("deleteAccount.wrongPassword")}}
	case err != nil:
		return nil, err
	}
	s.clearSessionCookie(r.fiber)
	return ui.Effects(ui.Replace(screens.PathAccountDeleted)), nil
}

func (s *Server) accountDeletedScreen(r *request) (screens.Page, error) {
	return screens.AccountDeleted(r.copy), nil
}

func (s *Server) deletionStatusScreen(r *request) (screens.Page, error) {
	code := r.query.Get("code")
	req, found, err := s.Privacy.DeletionStatus(r.fiber.Context(), code)
	if err != nil {
		return screens.Page{}, err
	}
	return screens.DeletionStatus(r.copy, screens.DeletionStatusState{Found: found, Code: req.Code, Status: req.Status,
		Date: brand.Date(req.CompletedAt)}), nil
}

// instagramDataDeletion answers Meta's data-deletion callback with the
// status page's address and the confirmation code.
func (s *Server) instagramDataDeletion(c fiber.Ctx) error {
	answer, err := s.Privacy.InstagramDataDeletion(c.Context(), c.FormValue("signed_request"))
	if err != nil {
		return err
	}
	return c.JSON(answer)
}

// instagramDeauthorize answers Meta's deauthorize callback.
func (s *Server) instagramDeauthorize(c fiber.Ctx) error {
	if err := s.Privacy.InstagramDeauthorize(c.Context(), c.FormValue("signed_request")); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusOK)
}
