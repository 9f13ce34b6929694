package target

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseKindArgs(t *testing.T) {
	sts := func(n string) KindRef { return KindRef{Kind: KindStatefulSet, Name: n} }
	ds := func(n string) KindRef { return KindRef{Kind: KindDaemonSet, Name: n} }
	for _, c := range []struct {
		args    []string
		ok      bool
		want    KindArgs
		wantErr string
	}{
		{args: []string{"deploy/web"}},
		{args: []string{"web"}},
		{args: []string{"deployment", "web"}},
		{args: nil},
		{args: []string{"sts/db"}, ok: true, want: KindArgs{Refs: []KindRef{sts("db")}}},
		{args: []string{"statefulsets.apps/db", "DS/agent", "daemonset.v1.apps/x", "sts/db"}, ok: true, want: KindArgs{Refs: []KindRef{sts("db"), ds("agent"), ds("x")}}},
		{args: []string{"ds", "a", "b"}, ok: true, want: KindArgs{Kind: KindDaemonSet, Refs: []KindRef{ds("a"), ds("b")}}},
		{args: []string{"statefulset"}, ok: true, want: KindArgs{Kind: KindStatefulSet}},
		{args: []string{"sts/db", "deploy/web"}, ok: true, wantErr: "separate runs"},
		{args: []string{"web", "sts/db"}, ok: true, wantErr: "separate runs"},
		{args: []string{"sts", "ds/x"}, ok: true, wantErr: "not both"},
		{args: []string{"sts/db/x"}, ok: true, wantErr: "more than one slash"},
		{args: []string{"sts/DB"}, ok: true, wantErr: `invalid StatefulSet name "DB"`},
		{args: []string{"ds/"}, ok: true, wantErr: "a DaemonSet name is required"},
	} {
		got, ok, err := ParseKindArgs(c.args, true)
		if ok != c.ok || (err == nil) != (c.wantErr == "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%q: ok %v err %v; want ok %v err %q", c.args, ok, err, c.ok, c.wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, want %+v", c.args, got, c.want)
		}
	}
	// Without -l, --all or -A a lone "sts" is still the Deployment named sts.
	if _, ok, _ := ParseKindArgs([]string{"sts"}, false); ok {
		t.Error(`"sts" alone: taken as a kind`)
	}
	if KindStatefulSet.Name("db") != "statefulset.apps/db" || KindDaemonSet.Resource() != "daemonsets" {
		t.Errorf("names: %s %s", KindStatefulSet.Name("db"), KindDaemonSet.Resource())
	}
}
