package krewcheck

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// ArchiveFile is one regular file of a release archive; Mode holds the permission bits (0o755
// for executables).
type ArchiveFile struct {
	Name string
	Data []byte
	Mode fs.FileMode
}

func sortedFiles(files []ArchiveFile) []ArchiveFile {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b ArchiveFile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// WriteTarGz packs files into a gzipped tar that depends only on its inputs: entries sorted by
// name, regular files only (Krew refuses symlinks), USTAR headers with uid/gid 0, no user or
// group names, the given permission bits and modification time mtime (whole seconds); gzip at
// best compression with an empty header (no name, no time).
func WriteTarGz(files []ArchiveFile, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	for _, f := range sortedFiles(files) {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.Name,
			Size:     int64(len(f.Data)),
			Mode:     int64(f.Mode.Perm()),
			ModTime:  mtime.Truncate(time.Second),
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteZip packs files into a zip that depends only on its inputs: entries sorted by name,
// deflated at best compression, Unix permission bits, modification time mtime in UTC.
func WriteZip(files []ArchiveFile, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, f := range sortedFiles(files) {
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime.UTC().Truncate(time.Second)}
		hdr.SetMode(f.Mode.Perm())
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
