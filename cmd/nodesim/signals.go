package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Exit codes of a command stopped by a signal: 128 plus the signal's number, as a shell
// reports it.
const (
	exitSIGINT  = 130
	exitSIGTERM = 143
)

// signals records the first SIGINT or SIGTERM the process gets. The simulation reads its
// flag (flag(), as engine.Options.Interrupt) between events and stops there; a sweep asks
// caught() between runs. Nothing about a run that finishes depends on it.
type signals struct {
	got atomic.Int32 // exit code of the first signal, 0 while none came
}

// watchSignals catches SIGINT and SIGTERM from now on, and turns a closed stdout from a
// fatal SIGPIPE into an EPIPE error on the write (the files of a run are committed before
// stdout is written, so nothing is lost when the reader has gone).
func watchSignals() *signals {
	s := &signals{}
	signal.Ignore(syscall.SIGPIPE)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for sig := range ch {
			code := int32(exitSIGINT)
			if sig == syscall.SIGTERM {
				code = exitSIGTERM
			}
			s.got.CompareAndSwap(0, code)
		}
	}()
	return s
}

// caught reports whether a signal came; a nil *signals never catches one.
func (s *signals) caught() bool { return s != nil && s.got.Load() != 0 }

// flag is the value that turns nonzero when a signal comes, for a run to read after each
// event without a call; nil for a nil *signals, which never catches one.
func (s *signals) flag() *atomic.Int32 {
	if s == nil {
		return nil
	}
	return &s.got
}

// exit is the error that ends a command stopped by the signal.
func (s *signals) exit() error {
	code := int(s.got.Load())
	name := "SIGINT"
	if code == exitSIGTERM {
		name = "SIGTERM"
	}
	return &exitError{code: code, err: fmt.Errorf("interrupted by %s", name)}
}
