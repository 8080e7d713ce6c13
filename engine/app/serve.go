package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"glimpse/engine"
	"glimpse/engine/config"
	"glimpse/engine/mail"
)

func serve(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, version string) error {
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Close(closeCtx); err != nil {
			logger.Error("close store", "error", err)
		}
	}()
	srv, err := a.Server(version, false)
	if err != nil {
		return err
	}
	srv.PrecompressFiles()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	if cfg.PprofAddr != "" {
		if err := servePprof(ctx, cfg.PprofAddr, logger); err != nil {
			return fmt.Errorf("GLIMPSE_PPROF_ADDR %s: %w", cfg.PprofAddr, err)
		}
	}
	if cfg.MetricsAddr != "" {
		if err := a.serveMetrics(ctx, cfg.MetricsAddr, srv, version, logger); err != nil {
			return fmt.Errorf("GLIMPSE_METRICS_ADDR %s: %w", cfg.MetricsAddr, err)
		}
	}
	fmt.Fprintf(stdout, "Glimpse %s is running at %s\n", version, cfg.BaseURL)
	if cfg.PublicDemo() {
		fmt.Fprintf(stdout, "Public demo: GLIMPSE_PAYMENTS=sandbox takes no money, and every page and mail says this is a demo\n")
	}
	if cfg.Demo {
		fmt.Fprintf(stdout, "Demo sign-in: %s / %s\n", DemoEmail, DemoPassword)
		fmt.Fprintf(stdout, "One-time sign-in link: ./bin/glimpse login-link %s\n", DemoEmail)
		fmt.Fprintf(stdout, "Studio: %s/studio as %s / %s (experiments: %s / %s; support desk: %s / %s)\n", cfg.BaseURL,
			EditorEmail, EditorPassword, TesterEmail, TesterPassword, SupportEmail, SupportPassword)
	}
	if cfg.DevMailbox {
		fmt.Fprintf(stdout, "Dev mailbox (every mail the app queues; GLIMPSE_ENVIRONMENT=development, for browsers on this machine only): %s/dev/mail\n", cfg.BaseURL)
	}
	if cfg.SMTPHost != "" {
		go a.Outbox.Run(ctx, mail.NewSMTPSender(mail.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort,
			Username: cfg.SMTPUsername, Password: cfg.SMTPPassword, From: cfg.SMTPFrom, TLS: cfg.SMTPTLS}), 10*time.Second)
	} else {
		logger.Info("GLIMPSE_SMTP_HOST is not set: mail is queued in the outbox but not sent")
	}
	go a.Breach.RunCatalogueSync(ctx, cfg.HIBPCatalogueSync)
	go a.Profiles.RunRefresh(ctx, time.Minute)
	// Renewals, retries and expiries; any number of instances may run it.
	go a.Billing.RunRenewals(ctx, time.Minute)
	go a.RunSweeper(ctx, sweepEvery)
	// Data exports are built in the background; a request wakes the job.
	go a.Privacy.RunExports(ctx, time.Minute)
	// Accounts unused for 24 months are deleted after a warning mail; the
	// pass runs once a day across instances.
	go a.Privacy.RunRetention(ctx, time.Hour)
	// Published content reaches every instance within seconds.
	go a.Content.Watch(ctx, 2*time.Second, func(int64) {
		if err := srv.ReloadContent(ctx); err != nil {
			logger.Error("reload content", "error", err)
		}
		if err := a.Experiments.Reload(ctx); err != nil {
			logger.Error("reload experiments", "error", err)
		}
	})
	// Scheduled publishes: every instance looks every few seconds, and the
	// claim (a conditional update) lets one publish each; the publish bumps
	// the content version, so the watch above reloads every instance.
	go a.Schedules.Run(ctx, 3*time.Second)
	// Experiment counts are kept in memory and flushed as documents of
	// their own (engine/experiment/counts.go).
	go a.Experiments.Run(ctx, 10*time.Second)
	errc := make(chan error, 1)
	go func() { errc <- srv.App().Listener(ln, fiberListenConfig()) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining requests", "timeout", cfg.ShutdownTimeout)
	defer srv.FlushReports(2 * time.Second) // error reports of the last requests, when reporting is on
	if err := srv.App().ShutdownWithTimeout(cfg.ShutdownTimeout); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	// Mails queued after an answer (recovery, cancel links) finish before
	// the database goes: each is a few writes, bounded by its own timeout.
	srv.WaitDetached()
	return nil
}
