// libzbar (Debian: libzbar-dev), the QR code decoder `custodian geotag` finds the photo of the QR code with.
#ifndef CUSTODIAN_CZBAR_SHIM_H
#define CUSTODIAN_CZBAR_SHIM_H

#include <zbar.h>

// zbar_fourcc is a macro with arguments, which Swift cannot call: the one format we hand zbar, 8-bit grey.
static inline unsigned long custodian_zbar_format_y800(void) {
    return zbar_fourcc('Y', '8', '0', '0');
}

#endif
