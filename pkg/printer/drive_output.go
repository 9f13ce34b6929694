package printer

import "k8s.io/cli-runtime/pkg/printers"

// ObjectPrinter is -o's printer for drive's objects (DriveStatus, StatefulSetDrive), nil for
// the human form. Errors: ToPrinter's (a format cli-runtime's printers do not know).
func (o *OutputFlags) ObjectPrinter() (printers.ResourcePrinter, error) {
	if o.Human() {
		return nil, nil
	}
	return o.ToPrinter()
}
