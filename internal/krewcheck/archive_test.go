package krewcheck

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var archiveFiles = []ArchiveFile{
	{Name: "kubectl_complete-rollplan", Data: []byte("helper"), Mode: 0o755},
	{Name: "LICENSE", Data: []byte("license"), Mode: 0o644},
	{Name: "kubectl-rollplan", Data: bytes.Repeat([]byte("plugin"), 1000), Mode: 0o755},
}

func reversed(files []ArchiveFile) []ArchiveFile {
	out := make([]ArchiveFile, len(files))
	for i, f := range files {
		out[len(files)-1-i] = f
	}
	return out
}

func TestArchivesDependOnlyOnTheirInputs(t *testing.T) {
	for name, write := range map[string]func([]ArchiveFile, time.Time) ([]byte, error){"tar.gz": WriteTarGz, "zip": WriteZip} {
		t.Run(name, func(t *testing.T) {
			a, err := write(archiveFiles, testTime)
			if err != nil {
				t.Fatal(err)
			}
			// Another order of the same files, and a time in another zone with nanoseconds.
			b, err := write(reversed(archiveFiles), testTime.In(time.FixedZone("x", 3600)).Add(999*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Error("same files in another order, same second: archives differ")
			}
			c, err := write(archiveFiles, testTime.Add(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(a, c) {
				t.Error("the modification time does not reach the archive")
			}
		})
	}
}

func TestTarGzEntries(t *testing.T) {
	b, err := WriteTarGz(archiveFiles, testTime)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header name=%q mtime=%v, want both empty", gz.Name, gz.ModTime)
	}
	type ent struct {
		Name       string
		Mode       int64
		Uid, Gid   int
		Uname      string
		ModTime    time.Time
		Data       string
		Typeflag   byte
		FormatPAX  bool
		FormatGNU  bool
		SizeOfData int
	}
	var got []ent
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got = append(got, ent{h.Name, h.Mode, h.Uid, h.Gid, h.Uname, h.ModTime.UTC(), string(data[:min(len(data), 7)]), h.Typeflag,
			h.Format == tar.FormatPAX, h.Format == tar.FormatGNU, len(data)})
	}
	want := []ent{
		{"LICENSE", 0o644, 0, 0, "", testTime, "license", tar.TypeReg, false, false, 7},
		{"kubectl-rollplan", 0o755, 0, 0, "", testTime, "pluginp", tar.TypeReg, false, false, 6000},
		{"kubectl_complete-rollplan", 0o755, 0, 0, "", testTime, "helper", tar.TypeReg, false, false, 6},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tar entries (-want +got):\n%s", d)
	}
}

func TestZipEntries(t *testing.T) {
	b, err := WriteZip(archiveFiles, testTime)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range zr.File {
		got = append(got, f.Name+" "+f.Mode().String()+" "+f.Modified.UTC().Format(time.RFC3339))
	}
	want := []string{
		"LICENSE -rw-r--r-- 2026-01-02T03:04:05Z",
		"kubectl-rollplan -rwxr-xr-x 2026-01-02T03:04:05Z",
		"kubectl_complete-rollplan -rwxr-xr-x 2026-01-02T03:04:05Z",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("zip entries (-want +got):\n%s", d)
	}
}
