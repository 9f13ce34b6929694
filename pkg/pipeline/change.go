package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// DeploymentChange is the change a command previews (and drive makes) to one Deployment, as
// its change flags give it (pkg/cmd ChangeFlags: --image, -f, --replicas, --to-revision,
// --restart). The zero value changes nothing. It mirrors what kubectl set image, apply,
// scale, rollout undo and rollout restart would store (pkg/change).
type DeploymentChange struct {
	Images   []string
	Filename string
	// Manifest, when set, is the Deployment of a manifest set (preview -f/-k) to apply instead
	// of reading Filename: one object the resource.Builder already read.
	Manifest   *unstructured.Unstructured
	Replicas   int32
	ToRevision int64
	Restart    bool
	// ReplicasSet and ToRevisionSet: --replicas and --to-revision were given (0 is a value).
	ReplicasSet, ToRevisionSet bool
}

// Any reports whether a change flag was given.
func (c DeploymentChange) Any() bool {
	return len(c.Images) > 0 || c.HasManifest() || c.ReplicasSet || c.ToRevisionSet || c.Restart
}

// HasManifest reports whether the change applies a manifest (-f, or a manifest set's
// Deployment).
func (c DeploymentChange) HasManifest() bool { return c.Filename != "" || c.Manifest != nil }

// Validate checks the flags alone: one line naming the flag and what to do.
func (c DeploymentChange) Validate() error {
	if c.ReplicasSet && c.Replicas < 0 {
		return fmt.Errorf("--replicas=%d: must be 0 or more", c.Replicas)
	}
	if c.ToRevisionSet && c.ToRevision < 0 {
		return fmt.Errorf("--to-revision=%d: a revision is a positive number (0: the previous one); see 'kubectl rollplan history'", c.ToRevision)
	}
	return nil
}

// Apply returns the desired Deployment: live changed by -f, then --image, --replicas,
// --to-revision and --restart, in that order. live may be nil only with -f (a Deployment
// that does not exist yet); owned are live's ReplicaSets (--to-revision's revisions); in is
// read for -f -; now stamps --restart. It returns warnings about accuracy. Errors: pkg/change's,
// the manifest's read or parse (naming the file).
func (c DeploymentChange) Apply(live *appsv1.Deployment, owned []*appsv1.ReplicaSet, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error) {
	var warnings []string
	d := live
	if c.Manifest != nil {
		var err error
		if d, err = change.FromObject(live, c.Manifest); err != nil {
			return nil, nil, err
		}
	} else if c.Filename != "" {
		manifest, err := readManifest(c.Filename, in)
		if err != nil {
			return nil, nil, err
		}
		if d, err = change.FromManifest(live, manifest); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.Filename, err)
		}
	}
	if d == nil {
		return nil, nil, errors.New("no Deployment to change")
	}
	var err error
	if len(c.Images) > 0 {
		if d, err = change.SetImages(d, c.Images); err != nil {
			return nil, nil, err
		}
	}
	if c.ReplicasSet {
		if d, err = change.SetReplicas(d, c.Replicas); err != nil {
			return nil, nil, err
		}
	}
	if c.ToRevisionSet {
		rb, err := change.ToRevision(d, owned, c.ToRevision)
		if err != nil {
			return nil, nil, err
		}
		if rb.Skipped {
			warnings = append(warnings, fmt.Sprintf("kubectl would skip this rollback: the template already matches revision %d", rb.Revision))
		}
		d = rb.Deployment
	}
	if c.Restart {
		if d, err = change.Restart(d, now); err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, "the restart time is part of the pod template: a restart in another second gets another ReplicaSet name")
	}
	return d, warnings, nil
}

func readManifest(name string, in io.Reader) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, fmt.Errorf("read manifest from standard input: %w", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return b, nil
}

// LoadState reads the Deployment namespace/name and its ReplicaSets from stateFile, or from
// the cluster (LoadLive: cluster.LoadLive through transient failures).
// allowMissing (for -f of a Deployment not created yet) turns NotFound into an empty State
// (Source "cluster"). Errors: client's, cluster.LoadFile's, LoadLive's (one line naming the
// object).
func LoadState(ctx context.Context, client func() (kubernetes.Interface, error), stateFile, namespace, name string, allowMissing bool) (*cluster.State, error) {
	if stateFile != "" {
		return cluster.LoadFile(stateFile, namespace, name)
	}
	cs, err := client()
	if err != nil {
		return nil, err
	}
	st, err := LoadLive(ctx, cs, namespace, name)
	if err != nil && allowMissing && apierrors.IsNotFound(err) {
		return &cluster.State{Source: "cluster"}, nil
	}
	return st, err
}

// Desired applies the change to the Deployment of st (nil with -f: a Deployment not
// created yet, put in namespace) and validates the result as the API server would
// (change.Validate). It is the offline form: the template has client-side defaults only.
func (c DeploymentChange) Desired(st *cluster.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error) {
	desired, warnings, err := c.Apply(st.Deployment, st.Owned(), in, now)
	if err != nil {
		return nil, nil, err
	}
	if desired.Namespace == "" {
		desired.Namespace = namespace
	}
	if err := change.Validate(desired); err != nil {
		// Wrapped: found on the client, not "from server" as kubectl would label an API status.
		return nil, nil, fmt.Errorf("the change is invalid: %w", err)
	}
	return desired, warnings, nil
}

// ServerDesired is Desired, then a server-side dry run of the result (DesiredDryRun): it
// returns the Deployment the API server would store (defaulted, validated, admitted; nothing
// persisted), with the live status kept. When the dry run is forbidden it falls back to
// client-side defaults and warns that the new ReplicaSet's name may differ.
func (c DeploymentChange) ServerDesired(ctx context.Context, cs kubernetes.Interface, st *cluster.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error) {
	desired, warnings, err := c.Desired(st, namespace, in, now)
	if err != nil {
		return nil, nil, err
	}
	server, more, err := DesiredDryRun(ctx, cs, st, desired)
	if err != nil {
		return nil, nil, err
	}
	return server, append(warnings, more...), nil
}

// DesiredDryRun returns what the API server would store for desired (kube.DryRunUpdateOf: an
// update of st's Deployment, sent again when only its status moved since it was read, or a
// create when st has none), with st's status kept. When the
// dry run is forbidden it returns the client-side defaults and a warning that the new
// ReplicaSet's name may differ.
func DesiredDryRun(ctx context.Context, cs kubernetes.Interface, st *cluster.State, desired *appsv1.Deployment) (*appsv1.Deployment, []string, error) {
	var read *appsv1.Deployment
	if st != nil {
		read = st.Deployment
	}
	server, err := kube.DryRunUpdateOf(ctx, cs, read, desired)
	switch {
	case errors.Is(err, kube.ErrDryRunForbidden):
		verb := "update"
		if desired.ResourceVersion == "" {
			verb = "create"
		}
		return change.ApplyDefaults(desired), []string{fmt.Sprintf("no permission for a server-side dry run ('%s' on deployments): the template is defaulted client-side and the new ReplicaSet's name may differ", verb)}, nil
	case err != nil:
		return nil, nil, err
	}
	if st != nil && st.Deployment != nil {
		server.Status = st.Deployment.Status
	}
	return server, nil, nil
}
