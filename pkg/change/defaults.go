package change

import (
	"encoding/json"
	"time"

	"github.com/distribution/reference"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// ApplyDefaults returns a copy of d with the defaults a v1.36.3 API server applies to an
// apps/v1 Deployment, so that a Deployment read from a manifest hashes like the one the server
// would store. It is the client-side fallback for kube.DryRunUpdate, which gets the exact object
// from the server: what mutating admission (webhooks, policies) changes in the template is
// only seen there. Checked against a v1.36.3 API server (testdata/apply): equal spec and
// pod-template-hash for a template with probes, ports, env, resources and ten volume kinds.
//
// Applied, mirroring SetObjectDefaults_Deployment (pkg/apis/apps/v1/zz_generated.defaults.go)
// and the core/v1 functions it calls (pkg/apis/core/v1/defaults.go):
//   - spec: replicas 1; strategy.type RollingUpdate; for RollingUpdate, maxSurge and
//     maxUnavailable 25%; revisionHistoryLimit 10; progressDeadlineSeconds 600.
//   - pod spec (SetDefaults_PodSpec): dnsPolicy ClusterFirst, restartPolicy Always,
//     securityContext {}, terminationGracePeriodSeconds 30, schedulerName default-scheduler.
//   - every container, init container and ephemeral container: imagePullPolicy (Always for
//     a ":latest" or untagged image, else IfNotPresent), terminationMessagePath
//     /dev/termination-log, terminationMessagePolicy File, port protocol TCP, env
//     fieldRef apiVersion v1, fileKeyRef optional false, probes (timeoutSeconds 1,
//     periodSeconds 10, successThreshold 1, failureThreshold 3, httpGet path "/" and scheme
//     HTTP, grpc service ""), lifecycle httpGet path and scheme, resource quantities rounded
//     up to milli-units.
//   - volumes: emptyDir when no source is set; hostPath type ""; secret, configMap,
//     downwardAPI and projected defaultMode 0644; downward fieldRef apiVersion v1;
//     serviceAccountToken expirationSeconds 3600; image volume pull policy; iSCSI, RBD,
//     AzureDisk and ScaleIO defaults; generic ephemeral claim volumeMode Filesystem.
//   - pod overhead and pod-level resources rounded up to milli-units.
//   - finally a JSON round trip, so the Go values are those a client decodes from the
//     server's answer (quantities in canonical form, omitted empty slices nil): the hash is
//     computed over Go values.
//
// Not applied: SetDefaults_Pod (it runs on Pods, not on templates: enableServiceLinks, host
// network ports, requests from limits), defaults behind feature gates that are off by
// default in v1.36.3, and anything admission adds.
func ApplyDefaults(d *appsv1.Deployment) *appsv1.Deployment {
	out := d.DeepCopy()
	defaultDeploymentSpec(&out.Spec)
	defaultPodSpec(&out.Spec.Template.Spec)
	return roundTrip(out)
}

// roundTrip returns d encoded to JSON and decoded again: the form a client gets back from the
// API server, which matters because the pod-template-hash hashes Go values, not JSON. A
// quantity written "0.5" comes back as "500m" with another internal form, and an empty
// slice or map that the encoding omits comes back nil. On an encoding error (which a
// well-formed Deployment does not give) d is returned as it is.
func roundTrip(d *appsv1.Deployment) *appsv1.Deployment {
	js, err := json.Marshal(d)
	if err != nil {
		return d
	}
	var out appsv1.Deployment
	if err := json.Unmarshal(js, &out); err != nil {
		return d
	}
	return &out
}

// defaultDeploymentSpec mirrors SetDefaults_Deployment (pkg/apis/apps/v1/defaults.go).
func defaultDeploymentSpec(s *appsv1.DeploymentSpec) {
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			s.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("25%"))
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			s.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
}

func defaultPodSpec(ps *corev1.PodSpec) {
	if ps.DNSPolicy == "" {
		ps.DNSPolicy = corev1.DNSClusterFirst
	}
	if ps.RestartPolicy == "" {
		ps.RestartPolicy = corev1.RestartPolicyAlways
	}
	if ps.SecurityContext == nil {
		ps.SecurityContext = &corev1.PodSecurityContext{}
	}
	if ps.TerminationGracePeriodSeconds == nil {
		ps.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if ps.SchedulerName == "" {
		ps.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range ps.Volumes {
		defaultVolume(&ps.Volumes[i])
	}
	for i := range ps.InitContainers {
		defaultContainer(&ps.InitContainers[i])
	}
	for i := range ps.Containers {
		defaultContainer(&ps.Containers[i])
	}
	for i := range ps.EphemeralContainers {
		c := corev1.Container(ps.EphemeralContainers[i].EphemeralContainerCommon)
		defaultContainer(&c)
		ps.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	roundUpResources(ps.Overhead)
	if ps.Resources != nil {
		roundUpResources(ps.Resources.Limits)
		roundUpResources(ps.Resources.Requests)
	}
}

// defaultContainer mirrors SetDefaults_Container and the generated per-field defaults of a
// container.
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = PullPolicyFor(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil {
			if vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
				vf.FieldRef.APIVersion = "v1"
			}
			if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
				vf.FileKeyRef.Optional = ptr.To(false)
			}
		}
	}
	roundUpResources(c.Resources.Limits)
	roundUpResources(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if c.Lifecycle != nil {
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

// PullPolicyFor returns the imagePullPolicy the API server defaults for image: Always when
// its tag is "latest" or it has neither tag nor digest, IfNotPresent otherwise (also when the
// reference does not parse). Mirrors SetDefaults_Container with parsers.ParseImageName
// (pkg/util/parsers), which use the same github.com/distribution/reference parser.
func PullPolicyFor(image string) corev1.PullPolicy {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return corev1.PullIfNotPresent
	}
	tagged, hasTag := named.(reference.Tagged)
	_, hasDigest := named.(reference.Digested)
	if (hasTag && tagged.Tag() == "latest") || (!hasTag && !hasDigest) {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// defaultProbe mirrors SetDefaults_Probe plus the handler defaults.
func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

// defaultHTTPGet mirrors SetDefaults_HTTPGetAction.
func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultVolume mirrors SetDefaults_Volume and the generated volume-source defaults.
func defaultVolume(v *corev1.Volume) {
	if ptr.AllPtrFieldsNil(&v.VolumeSource) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	src := &v.VolumeSource
	if src.Image != nil && src.Image.PullPolicy == "" { // ImageVolume is GA in v1.36
		src.Image.PullPolicy = PullPolicyFor(src.Image.Reference)
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
	if src.Secret != nil && src.Secret.DefaultMode == nil {
		src.Secret.DefaultMode = ptr.To[int32](corev1.SecretVolumeSourceDefaultMode)
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if r := src.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if src.DownwardAPI != nil {
		if src.DownwardAPI.DefaultMode == nil {
			src.DownwardAPI.DefaultMode = ptr.To[int32](corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultDownwardItems(src.DownwardAPI.Items)
	}
	if src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil {
		src.ConfigMap.DefaultMode = ptr.To[int32](corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if a := src.AzureDisk; a != nil {
		if a.CachingMode == nil {
			a.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
		}
		if a.FSType == nil {
			a.FSType = ptr.To("ext4")
		}
		if a.ReadOnly == nil {
			a.ReadOnly = ptr.To(false)
		}
		if a.Kind == nil {
			a.Kind = ptr.To(corev1.AzureSharedBlobDisk)
		}
	}
	if p := src.Projected; p != nil {
		if p.DefaultMode == nil {
			p.DefaultMode = ptr.To[int32](corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range p.Sources {
			if p.Sources[i].DownwardAPI != nil {
				defaultDownwardItems(p.Sources[i].DownwardAPI.Items)
			}
			if t := p.Sources[i].ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr.To(int64(time.Hour.Seconds()))
			}
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		}
		roundUpResources(spec.Resources.Limits)
		roundUpResources(spec.Resources.Requests)
	}
}

func defaultDownwardItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil && items[i].FieldRef.APIVersion == "" {
			items[i].FieldRef.APIVersion = "v1"
		}
	}
}

// roundUpResources mirrors SetDefaults_ResourceList: quantities are rounded up to
// milli-units.
func roundUpResources(rl corev1.ResourceList) {
	for k, q := range rl {
		q.RoundUp(-3)
		rl[k] = q
	}
}
