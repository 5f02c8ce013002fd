package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
)

// The --out directory is written by a protocol that a killed run cannot break:
//
//  1. Every file of the run is written into a fresh staging directory inside the target,
//     .nodesim-run-XXXXXXXX (same file system, so renames out of it are atomic), while the
//     run goes and once it has ended; each file is synced to disk as it is closed.
//  2. manifest.json is written into the staging directory last: the run id, the scenario,
//     its seed, and every file with its size and SHA-256.
//  3. Commit: the target's old manifest.json is removed first (from then on nothing there is
//     vouched for), each file is renamed into the target, the new manifest.json is renamed
//     in last, the directory is synced and the staging directory removed.
//
// A reader trusts a file in the directory only when manifest.json lists it with the same
// size and hash; files of two runs are never vouched for by one manifest. SIGINT and SIGTERM
// before the commit remove the staging directory and leave the target as it was; the commit
// itself runs to its end once begun (a signal then lets the command finish). Only a kill
// that cannot be caught (SIGKILL, power loss) can interrupt it, and then no manifest, or the
// old one with every file it lists still whole, remains.

// manifestName is the file that vouches for the others.
const manifestName = "manifest.json"

// stagingPrefix starts the name of a run's staging directory.
const stagingPrefix = ".nodesim-run-"

// Manifest lists the files of one run.
type Manifest struct {
	// RunID identifies the run's output: a hash of the scenario, seed, version and every
	// file's name and hash, so the same run always has the same id.
	RunID          string         `json:"runId"`
	Scenario       string         `json:"scenario"`
	ScenarioSHA256 string         `json:"scenarioSha256"`
	Seed           uint64         `json:"seed"`
	Nodesim        string         `json:"nodesim"`
	Files          []ManifestFile `json:"files"`
}

// ManifestFile is one file of a run.
type ManifestFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// outDir is a run's output under construction: the staging directory and the files
// written into it so far.
type outDir struct {
	dir, stage string
	files      []ManifestFile
	open       []*stagedFile
	committed  bool
}

// openOutDir creates the target directory if needed and a fresh staging directory in it.
func openOutDir(dir string) (*outDir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	stage, err := os.MkdirTemp(dir, stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("creating a staging directory in %s: %w", dir, err)
	}
	return &outDir{dir: dir, stage: stage}, nil
}

// stagedFile is one file being written in the staging directory; it counts and hashes
// what goes through it.
type stagedFile struct {
	o    *outDir
	name string
	f    *os.File
	h    hash.Hash
	n    int64
}

func (s *stagedFile) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	s.h.Write(p[:n])
	s.n += int64(n)
	return n, err
}

// create starts a file of the run.
func (o *outDir) create(name string) (*stagedFile, error) {
	f, err := os.OpenFile(filepath.Join(o.stage, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", filepath.Join(o.dir, name), err)
	}
	s := &stagedFile{o: o, name: name, f: f, h: sha256.New()}
	o.open = append(o.open, s)
	return s, nil
}

// close syncs and closes a file and lists it for the manifest.
func (s *stagedFile) close() error {
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(s.o.dir, s.name), err)
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(s.o.dir, s.name), err)
	}
	s.o.files = append(s.o.files, ManifestFile{Name: s.name, Size: s.n, SHA256: hex.EncodeToString(s.h.Sum(nil))})
	return nil
}

// write puts a whole file of the run.
func (o *outDir) write(name string, data []byte) error {
	s, err := o.create(name)
	if err != nil {
		return err
	}
	if _, err := s.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(o.dir, name), err)
	}
	return s.close()
}

// commit writes the manifest and moves the run's files into the target directory, the
// manifest last (see the protocol above).
func (o *outDir) commit(m Manifest) error {
	m.Files = o.files
	id := sha256.New()
	fmt.Fprintf(id, "%s %d %s\n", m.ScenarioSHA256, m.Seed, m.Nodesim)
	for _, f := range m.Files {
		fmt.Fprintf(id, "%s %d %s\n", f.Name, f.Size, f.SHA256)
	}
	m.RunID = hex.EncodeToString(id.Sum(nil))[:16]
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := o.write(manifestName, append(data, '\n')); err != nil {
		return err
	}
	old := filepath.Join(o.dir, manifestName)
	if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replacing %s: %w", old, err)
	}
	for _, f := range m.Files {
		if err := os.Rename(filepath.Join(o.stage, f.Name), filepath.Join(o.dir, f.Name)); err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(o.dir, f.Name), err)
		}
	}
	if err := os.Rename(filepath.Join(o.stage, manifestName), old); err != nil {
		return fmt.Errorf("writing %s: %w", old, err)
	}
	o.committed = true
	syncDir(o.dir)
	return os.Remove(o.stage)
}

// syncDir makes the renames into dir durable where the file system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// abort removes the staging directory and everything in it, unless the run was committed.
func (o *outDir) abort() {
	if o == nil || o.committed {
		return
	}
	for _, s := range o.open {
		s.f.Close()
	}
	os.RemoveAll(o.stage)
}
