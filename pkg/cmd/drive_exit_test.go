package cmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
)

// TestDriveErrorExitCodes: a drive left held prints the closing block and exits 4 when it is
// intact (the API server unreachable, the lease lapsed, interrupted) and 1 for a real
// error; an error that leaves nothing held is returned as it is, with no block.
func TestDriveErrorExitCodes(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	plain := errors.New("get deployments.apps \"web\": forbidden")
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		err       error
		wantCode  int
		wantBlock string // a line of the block, "" for none
	}{
		{"API server unreachable", context.Background(), &drive.HeldError{Err: errors.New("connection refused"), Intact: true, Step: 2, Steps: 3, Released: true}, ExitHeld, "stays held at step 2 of 3 (drive plan ; paused, strategy Recreate): connection refused"},
		{"interrupted", canceled, &drive.HeldError{Err: context.Canceled, Intact: true, Step: 1, Steps: 3, Released: true}, ExitHeld, "): interrupted"},
		{"an edit by someone else", context.Background(), &drive.HeldError{Err: errors.New("ReplicaSet web-1 was scaled by kubectl"), Step: 1, Steps: 3}, ExitError, "stopped by the error below"},
		{"not held", context.Background(), plain, ExitError, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			o, err := driverun.NewOutcome(tc.ctx, "shop", "web", nil, tc.err)
			code := HandleError(&errOut, finishDrive(genericiooptions.IOStreams{Out: io.Discard, ErrOut: &out}, o, err))
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			if tc.wantBlock == "" && out.Len() != 0 {
				t.Errorf("a block for an error that leaves nothing held:\n%s", out.String())
			}
			if tc.wantBlock != "" && (!strings.Contains(out.String(), tc.wantBlock) || !strings.Contains(out.String(), "kubectl rollplan resume deploy/web -n shop")) {
				t.Errorf("block:\n%s\nwant it to hold %q and the hand-back command", out.String(), tc.wantBlock)
			}
			if tc.wantCode == ExitError && tc.wantBlock != "" && !strings.Contains(errOut.String(), "error: ReplicaSet web-1 was scaled") {
				t.Errorf("error output %q, want the error", errOut.String())
			}
		})
	}
}
