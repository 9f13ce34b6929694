package framework

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// APIServer is a second, bare cluster: etcd and kube-apiserver v1.36.3 alone
// (hack/cluster/up.sh --api-only), started in its own state dir on free loopback ports in
// about 5 s. No controller runs there: Deployments and ReplicaSets change only when a client
// writes them (CreateSettledDeployment writes the state a finished rollout leaves), no pod
// exists, and namespaces get no "default" ServiceAccount. Enough for the read-only verbs.
type APIServer struct {
	// Name is the name the server was asked for (SharedAPIServer).
	Name string
	// Kubeconfig is the path of its admin kubeconfig (one context, "rollplan-local").
	Kubeconfig string
	// Config is the rest.Config loaded from Kubeconfig (QPS 100, burst 200).
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface
	// StateDir is its up.sh state dir (logs/, the kubeconfig, etcd's data).
	StateDir string
	// BinDir holds the cluster binaries, kubectl and the plugin: <repo>/_output/bin.
	BinDir string
}

type sharedServer struct {
	once sync.Once
	srv  *APIServer
	err  error
}

var (
	serversMu sync.Mutex
	servers   = map[string]*sharedServer{}
)

// SharedAPIServer returns the APIServer called name, starting it on first use; every test
// of the process that asks for the same name gets the same server. Main (Run) stops them all
// after the tests, also when ROLLPLAN_E2E_KUBECONFIG names the main cluster. It skips or
// fails t as Get does when the binaries cannot be built, and fails t if the server does not
// start (its logs stay in the state dir named by the error).
func SharedAPIServer(t testing.TB, name string) *APIServer {
	t.Helper()
	serversMu.Lock()
	s := servers[name]
	if s == nil {
		s = &sharedServer{}
		servers[name] = s
	}
	serversMu.Unlock()
	s.once.Do(func() { s.srv, s.err = startAPIServer(name) })
	if s.err != nil {
		if skip := buildSkip(s.err); skip != "" {
			if os.Getenv(EnvRequired) == "1" {
				t.Fatalf("e2e: %s (%s=1, so this fails instead of skipping)", skip, EnvRequired)
			}
			t.Skipf("e2e: %s; skipping (set %s=1 to make this a failure)", skip, EnvRequired)
		}
		t.Fatalf("e2e: API server %s: %v", name, s.err)
	}
	return s.srv
}

// errBuild is startAPIServer's error when hack/cluster/build.sh fails.
type errBuild struct{ msg string }

func (e errBuild) Error() string { return e.msg }

func buildSkip(err error) string {
	if b, ok := err.(errBuild); ok {
		return b.msg
	}
	return ""
}

// startAPIServer builds the binaries (cached) and runs up.sh --api-only in a fresh state
// dir under _output/.
func startAPIServer(name string) (*APIServer, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	build := exec.Command(filepath.Join(root, "hack", "cluster", "build.sh"))
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, errBuild{fmt.Sprintf("cannot build the local cluster binaries (hack/cluster/build.sh: %v): %s", err, lastLines(out, 5))}
	}
	if err := os.MkdirAll(filepath.Join(root, "_output"), 0o755); err != nil {
		return nil, fmt.Errorf("create _output: %w", err)
	}
	dir, err := os.MkdirTemp(filepath.Join(root, "_output"), "e2e-apiserver-")
	if err != nil {
		return nil, fmt.Errorf("create API server state dir: %w", err)
	}
	fmt.Fprintf(os.Stderr, "framework: starting API server %s (etcd + kube-apiserver) in %s\n", name, dir)
	began := time.Now()
	up := exec.Command(filepath.Join(root, "hack", "cluster", "up.sh"), "--api-only")
	up.Dir = root
	up.Env = append(os.Environ(), "ROLLPLAN_CLUSTER_DIR="+dir)
	var out bytes.Buffer
	up.Stdout, up.Stderr = &out, &out
	if err := up.Run(); err != nil {
		return nil, fmt.Errorf("start (hack/cluster/up.sh --api-only, logs in %s/logs): %v: %s", dir, err, lastLines(out.Bytes(), 30))
	}
	a := &APIServer{Name: name, Kubeconfig: filepath.Join(dir, "kubeconfig"), StateDir: dir,
		BinDir: filepath.Join(root, "_output", "bin")}
	serversMu.Lock()
	startedServers = append(startedServers, a)
	serversMu.Unlock()
	fmt.Fprintf(os.Stderr, "framework: API server %s up in %s\n", name, time.Since(began).Round(100*time.Millisecond))
	cfg, err := clientcmd.BuildConfigFromFlags("", a.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", a.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	if a.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("client for %s: %w", a.Kubeconfig, err)
	}
	a.Config = cfg
	return a, nil
}

// startedServers are the API servers this process started, stopped by stopServers.
var startedServers []*APIServer

// Stop stops the server with hack/cluster/down.sh and removes its state dir.
func (a *APIServer) Stop() error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	down := exec.Command(filepath.Join(root, "hack", "cluster", "down.sh"))
	down.Env = append(os.Environ(), "ROLLPLAN_CLUSTER_DIR="+a.StateDir)
	if out, err := down.CombinedOutput(); err != nil {
		return fmt.Errorf("stop API server %s in %s: %v: %s", a.Name, a.StateDir, err, out)
	}
	return nil
}

// stopServers stops every API server this process started (at most once each).
func stopServers() {
	serversMu.Lock()
	list := startedServers
	startedServers = nil
	serversMu.Unlock()
	var wg sync.WaitGroup
	for _, a := range list {
		wg.Go(func() {
			if err := a.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "framework: %v\n", err)
			}
		})
	}
	wg.Wait()
}

// CreateNamespace creates namespace name on the server (the same name as a namespace of the
// main cluster, for a preview of one -n across contexts) and deletes it when t ends. Nothing
// finalizes a deleted namespace there (no namespace controller); the server is thrown away.
func (a *APIServer) CreateNamespace(t testing.TB, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := a.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("API server %s: create namespace %s: %v", a.Name, name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Logf("API server %s: delete namespace %s: %v", a.Name, name, err)
		}
	})
}

// CreateSettled writes into ns what the Deployment and ReplicaSet controllers leave after
// b's Deployment rolled out completely (CreateSettledDeployment) and returns the Deployment
// as stored; it fails t on an error.
func (a *APIServer) CreateSettled(t testing.TB, ns string, b *DeploymentBuilder) *appsv1.Deployment {
	t.Helper()
	d, err := CreateSettledDeployment(t.Context(), a.Client, ns, b.Build())
	if err != nil {
		t.Fatalf("API server %s: %v", a.Name, err)
	}
	return d
}

// CreateSettledDeployment writes into ns, through client, what the Deployment and ReplicaSet
// controllers leave after d rolled out completely: d at revision 1, one ReplicaSet it
// controls (spec.replicas pods, all ready and available per its status) and both statuses
// observed; for a server where no controller runs (APIServer). The ReplicaSet's
// pod-template-hash is a stand-in (a hash of the template, not the controller's FNV): the
// planner finds a Deployment's ReplicaSets by owner and template, not by name. Five requests.
// It returns d as stored; errors name the object whose write failed.
func CreateSettledDeployment(ctx context.Context, client kubernetes.Interface, ns string, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	const revision = "deployment.kubernetes.io/revision"
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	d.Namespace = ns
	d.Annotations = map[string]string{revision: "1"}
	created, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create deployment %s/%s: %w", ns, d.Name, err)
	}
	tmpl := created.Spec.Template.DeepCopy()
	sum, err := tmpl.Marshal()
	if err != nil {
		return nil, fmt.Errorf("hash the template of %s/%s: %w", ns, d.Name, err)
	}
	h := sha256.Sum256(sum)
	hash := hex.EncodeToString(h[:5])
	tmpl.Labels["pod-template-hash"] = hash
	sel := created.Spec.Selector.DeepCopy()
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels["pod-template-hash"] = hash
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: created.Name + "-" + hash, Namespace: ns, Labels: tmpl.Labels,
			Annotations: map[string]string{
				revision: "1",
				"deployment.kubernetes.io/desired-replicas": strconv.Itoa(int(replicas)),
				"deployment.kubernetes.io/max-replicas":     strconv.Itoa(int(replicas)),
			},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(created, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas), Selector: sel, Template: *tmpl,
			MinReadySeconds: created.Spec.MinReadySeconds},
	}
	rs, err = client.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create replicaset %s/%s: %w", ns, created.Name+"-"+hash, err)
	}
	rs.Status = appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
		AvailableReplicas: replicas, ObservedGeneration: rs.Generation}
	if _, err := client.AppsV1().ReplicaSets(ns).UpdateStatus(ctx, rs, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("update status of replicaset %s/%s: %w", ns, rs.Name, err)
	}
	now := metav1.Now()
	created.Status = appsv1.DeploymentStatus{
		ObservedGeneration: created.Generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
				Message: "Deployment has minimum availability.", LastUpdateTime: now, LastTransitionTime: now},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
				Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name), LastUpdateTime: now, LastTransitionTime: now},
		},
	}
	out, err := client.AppsV1().Deployments(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update status of deployment %s/%s: %w", ns, created.Name, err)
	}
	return out, nil
}

// KubeContext is one context of a kubeconfig WriteKubeconfig writes: Name, with the cluster
// and user of the current context of the kubeconfig at Kubeconfig (its server replaced by
// Server if set: a proxy in front of it); or, with Server alone, a cluster at Server (TLS
// unverified) and a user without credentials.
type KubeContext struct {
	Name       string
	Kubeconfig string
	Server     string
}

// Unreachable is a KubeContext named name whose server is a loopback port nothing listens
// on (a port just bound and released): every request to it is refused at once.
func Unreachable(t testing.TB, name string) KubeContext {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pick a closed port: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return KubeContext{Name: name, Server: "https://" + addr}
}

// WriteKubeconfig writes a kubeconfig at path with contexts, in the order given, cluster and
// user named after each context, the first one current; namespace "default" in each.
// Errors: a kubeconfig that cannot be read or has no current context; path not writable.
func WriteKubeconfig(path string, contexts ...KubeContext) error {
	out := clientcmdapi.NewConfig()
	for _, kc := range contexts {
		cluster, user := clientcmdapi.NewCluster(), clientcmdapi.NewAuthInfo()
		if kc.Kubeconfig == "" {
			cluster.Server, cluster.InsecureSkipTLSVerify = kc.Server, true
		} else {
			in, err := clientcmd.LoadFromFile(kc.Kubeconfig)
			if err != nil {
				return fmt.Errorf("context %s: %w", kc.Name, err)
			}
			cur := in.Contexts[in.CurrentContext]
			if cur == nil || in.Clusters[cur.Cluster] == nil || in.AuthInfos[cur.AuthInfo] == nil {
				return fmt.Errorf("context %s: %s has no complete current context", kc.Name, kc.Kubeconfig)
			}
			cluster, user = in.Clusters[cur.Cluster], in.AuthInfos[cur.AuthInfo]
			if kc.Server != "" {
				cluster.Server = kc.Server
			}
		}
		out.Clusters[kc.Name], out.AuthInfos[kc.Name] = cluster, user
		out.Contexts[kc.Name] = &clientcmdapi.Context{Cluster: kc.Name, AuthInfo: kc.Name, Namespace: "default"}
		if out.CurrentContext == "" {
			out.CurrentContext = kc.Name
		}
	}
	return clientcmd.WriteToFile(*out, path)
}
