// Package krewcheck does with a Krew plugin manifest what Krew (sigs.k8s.io/krew v0.4.x) and
// the krew-index CI do, for rollplan's release tooling and tests. Krew itself cannot be a
// dependency here (its module is not served by the module proxy this project uses), so its
// rules are reimplemented from its source, each one named by a Rule:
//
//   - decoding and structural validation: ValidatePlugin mirrors
//     internal/index/validation.ValidatePlugin (apiVersion, kind, safe name, name equal to the
//     file name, one-line shortDescription, semver version with a leading "v", per platform:
//     uri, 64-hex sha256, bin, files, an os/arch selector);
//   - the index checks of cmd/validate-krew-manifest: ValidateManifestFile (the file is
//     <name>.yaml, every platform selects a supported os/arch, no os/arch selected twice; its
//     length warnings are errors here);
//   - installation: Install mirrors internal/installation.Install with --manifest and --archive
//     (sha256 verified before extraction, files operations, bin symlinked into
//     $KREW_ROOT/bin, receipt written);
//   - the release bot's template: RenderTemplate mirrors krew-release-bot's .krew.yaml
//     rendering ({{ .TagName }}, {{ addURIAndSha ... }}).
//
// ValidateRelease and CheckArchive add this project's own release rules (six targets, one
// archive per os/arch, the completion helper and LICENSE installed). Not modelled: downloads
// (only local archives are read), index repositories, upgrades and uninstall, Windows symlink
// fallbacks.
package krewcheck
