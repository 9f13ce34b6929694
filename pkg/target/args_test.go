package target

import (
	"strings"
	"testing"
)

// The cases of TestParseName and TestParseArgs moved here from pkg/cluster's name_test.go
// (ResolveName, ResolveArgs) unchanged; the later ones are new.
func TestParseName(t *testing.T) {
	tests := []struct {
		arg, want, wantErr string
	}{
		{arg: "web", want: "web"},
		{arg: "deploy/web", want: "web"},
		{arg: "deployment/web", want: "web"},
		{arg: "deployments/web", want: "web"},
		{arg: "deployment.apps/web", want: "web"},
		{arg: "deployments.apps/web", want: "web"},
		{arg: "deployments.v1.apps/web", want: "web"},
		{arg: "Deployment/web", want: "web"},
		{arg: "deploy/my.app-1", want: "my.app-1"},
		{arg: "rs/web-abc", wantErr: "rollplan works on Deployments; got replicasets"},
		{arg: "replicaset/web-abc", wantErr: "rollplan works on Deployments; got replicasets"},
		{arg: "sts/db", wantErr: "rollplan works on Deployments; got statefulsets"},
		{arg: "daemonsets.apps/x", wantErr: "rollplan works on Deployments; got daemonsets.apps"},
		{arg: "deployments.extensions/web", wantErr: "rollplan works on Deployments; got deployments.extensions"},
		{arg: "pod/web-1", wantErr: "rollplan works on Deployments; got pods"},
		{arg: "/web", wantErr: "rollplan works on Deployments; got an empty resource type"},
		{arg: "deploy/", wantErr: "a Deployment name is required"},
		{arg: "", wantErr: "a Deployment name is required"},
		{arg: "deploy/web/x", wantErr: `"deploy/web/x": arguments in resource/name form may not have more than one slash`},
		{arg: "Web", wantErr: `invalid Deployment name "Web": a lowercase RFC 1123 subdomain`},
		{arg: "deploy/web_1", wantErr: `invalid Deployment name "web_1"`},
		// New: every spelling of the type, and more kinds.
		{arg: "deploy.apps/web", want: "web"},
		{arg: "deploy.v1.apps/web", want: "web"},
		{arg: "deployment.v1.apps/web", want: "web"},
		{arg: "DEPLOYMENTS.V1.APPS/web", want: "web"},
		{arg: "deployments.v2.apps/web", wantErr: "rollplan works on Deployments; got deployments.v2.apps"},
		{arg: "rs.apps/x", wantErr: "rollplan works on Deployments; got replicasets.apps"},
		{arg: "svc/web", wantErr: "rollplan works on Deployments; got services"},
		{arg: "cronjob/nightly", wantErr: "rollplan works on Deployments; got cronjobs"},
		{arg: "widgets.example.com/w", wantErr: "rollplan works on Deployments; got widgets.example.com"},
		{arg: "rs/", wantErr: "rollplan works on Deployments; got replicasets"},
		{arg: "deploy/-web", wantErr: `invalid Deployment name "-web"`},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := ParseName(tc.arg)
			checkParse(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		want, wantErr string
	}{
		{name: "one name", args: []string{"web"}, want: "web"},
		{name: "type/name", args: []string{"deploy/web"}, want: "web"},
		{name: "TYPE NAME", args: []string{"deployment", "web"}, want: "web"},
		{name: "other TYPE NAME", args: []string{"rs", "web-1"}, wantErr: "rollplan works on Deployments; got replicasets"},
		{name: "two names", args: []string{"deploy/a", "deploy/b"}, wantErr: `one Deployment at a time: got "deploy/a" and "deploy/b"`},
		{name: "TYPE TYPE/NAME", args: []string{"deploy", "deploy/web"}, wantErr: "give either TYPE NAME or TYPE/NAME, not both"},
		{name: "none", args: nil, wantErr: "a Deployment is required: give deploy/NAME (or NAME)"},
		{name: "three", args: []string{"deploy", "a", "b"}, wantErr: "one Deployment at a time: got 3 arguments (deploy a b)"},
		// New.
		{name: "qualified TYPE NAME", args: []string{"deployments.v1.apps", "web"}, want: "web"},
		{name: "two plain names", args: []string{"web", "api"}, wantErr: "rollplan works on Deployments; got web"},
		{name: "TYPE and an invalid NAME", args: []string{"deploy", "Web"}, wantErr: `invalid Deployment name "Web"`},
		{name: "TYPE and an empty NAME", args: []string{"deploy", ""}, wantErr: "a Deployment name is required"},
		{name: "empty list", args: []string{}, wantErr: "a Deployment is required"},
		{name: "one invalid name", args: []string{"sts/db"}, wantErr: "rollplan works on Deployments; got statefulsets"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArgs(tc.args)
			checkParse(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func checkParse(t *testing.T, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Errorf("got %q, error %v; want error containing %q", got, err, wantErr)
	}
}

// The first four cases are pkg/cmd's TestSplitDeploymentArg, moved; the rest are new.
func TestSplitPrefix(t *testing.T) {
	for _, tt := range []struct {
		arg, prefix, name string
		ok                bool
	}{
		{"web", "", "web", true},
		{"deploy/web", "deploy", "web", true},
		{"Deployment.apps/web", "Deployment.apps", "web", true},
		{"rs/web", "", "", false},
		{"", "", "", true},
		{"deploy/", "deploy", "", true},
		{"deploy.v1.apps/w", "deploy.v1.apps", "w", true},
		{"deployments.v1.apps/", "deployments.v1.apps", "", true},
		{"DEPLOY/w", "DEPLOY", "w", true},
		{"pod/", "", "", false},
		{"/w", "", "", false},
		{"deployments.extensions/w", "", "", false},
	} {
		p, n, ok := SplitPrefix(tt.arg)
		if p != tt.prefix || n != tt.name || ok != tt.ok {
			t.Errorf("SplitPrefix(%q) = %q, %q, %v; want %q, %q, %v", tt.arg, p, n, ok, tt.prefix, tt.name, tt.ok)
		}
	}
}

// TestOneParser: every prefix completion offers is one ParseName accepts, and back.
func TestOneParser(t *testing.T) {
	for typ := range deploymentTypes {
		for _, spelled := range []string{typ, strings.ToUpper(typ)} {
			if _, _, ok := SplitPrefix(spelled + "/w"); !ok {
				t.Errorf("SplitPrefix refuses %q", spelled+"/w")
			}
			if _, err := ParseName(spelled + "/web"); err != nil {
				t.Errorf("ParseName(%q): %v", spelled+"/web", err)
			}
		}
	}
	for _, other := range []string{"rs", "pods", "deployments.extensions", "sts.apps"} {
		_, _, ok := SplitPrefix(other + "/w")
		_, err := ParseName(other + "/web")
		if ok || err == nil {
			t.Errorf("%s: SplitPrefix ok %v, ParseName error %v; want both to refuse", other, ok, err)
		}
	}
}
