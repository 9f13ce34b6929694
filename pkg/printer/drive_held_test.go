package printer

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// TestPrintHeldExit: the closing block of a drive left held says where it stands (a step
// under way whose writes landed is named, with its writes, though the drive state does not
// record it yet), whether the lease was released (or when it lapses), and the commands that
// continue, walk back, hand back and show it; an abort is continued by abort and has no
// walk back.
func TestPrintHeldExit(t *testing.T) {
	lapses := time.Date(2026, 11, 21, 13, 42, 46, 0, time.UTC)
	for _, tc := range []struct {
		name string
		e    *drive.HeldError
		want string
	}{
		{"interrupted, released", &drive.HeldError{Err: errors.New("x"), Intact: true, Step: 2, Steps: 3, Phase: drive.PhaseForward, PlanID: "01297f449739", Released: true},
			`deployment shop/web stays held at step 2 of 3 (drive plan 01297f449739; paused, strategy Recreate): interrupted
  the lease was released: any driver may continue now
  continue:      kubectl rollplan drive deploy/web -n shop
  walk back:     kubectl rollplan abort deploy/web -n shop
  hand it back:  kubectl rollplan resume deploy/web -n shop
  see it:        kubectl rollplan drive status deploy/web -n shop
`},
		{"step 1 under way, its write landed: not \"step 0 of 4\" alone", &drive.HeldError{Err: errors.New("x"), Intact: true, Step: 0, Steps: 4, Phase: drive.PhaseForward, PlanID: "01297f449739",
			LeaseExpires: &lapses, InStep: 1, Landed: []string{"created web-6d4f with 3 replicas"}},
			`deployment shop/web stays held in step 1 of 4 (drive plan 01297f449739; paused, strategy Recreate): interrupted
  step 1's ReplicaSet writes landed (created web-6d4f with 3 replicas); the drive state records no step of 4 done: the next run reads the ReplicaSets and reconciles step 1 from there
  the lease was not released (the API server did not answer): it lapses at 2026-11-21T13:42:46Z; continue after that, or now with --force
  continue:      kubectl rollplan drive deploy/web -n shop
  walk back:     kubectl rollplan abort deploy/web -n shop
  hand it back:  kubectl rollplan resume deploy/web -n shop
  see it:        kubectl rollplan drive status deploy/web -n shop
`},
		{"step 3 under way, two writes landed", &drive.HeldError{Err: errors.New("x"), Intact: true, Step: 2, Steps: 4, Phase: drive.PhaseForward, PlanID: "p", Released: true,
			InStep: 3, Landed: []string{"scaled up web-6d4f from 5 to 8", "scaled down web-5c9b from 5 to 2"}},
			`deployment shop/web stays held in step 3 of 4 (drive plan p; paused, strategy Recreate): interrupted
  step 3's ReplicaSet writes landed (scaled up web-6d4f from 5 to 8; scaled down web-5c9b from 5 to 2); the drive state records 2 steps of 4 done: the next run reads the ReplicaSets and reconciles step 3 from there
  the lease was released: any driver may continue now
  continue:      kubectl rollplan drive deploy/web -n shop
  walk back:     kubectl rollplan abort deploy/web -n shop
  hand it back:  kubectl rollplan resume deploy/web -n shop
  see it:        kubectl rollplan drive status deploy/web -n shop
`},
		{"abort, lease not released", &drive.HeldError{Err: errors.New("x"), Intact: true, Step: 1, Steps: 2, Phase: drive.PhaseAbort, PlanID: "abc", LeaseExpires: &lapses},
			`deployment shop/web stays held at step 1 of 2 (abort plan abc; paused, strategy Recreate): interrupted
  the lease was not released (the API server did not answer): it lapses at 2026-11-21T13:42:46Z; continue after that, or now with --force
  continue:      kubectl rollplan abort deploy/web -n shop --yes
  hand it back:  kubectl rollplan resume deploy/web -n shop
  see it:        kubectl rollplan drive status deploy/web -n shop
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PrintHeldExit(&b, "shop", "web", tc.e, "interrupted"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
