// libpng (Debian: libpng-dev), whose simplified API (png_image_write_to_memory) writes CustodianQR's PNG images:
// the links service's QR codes and the command line's.
#ifndef CUSTODIAN_CPNG_SHIM_H
#define CUSTODIAN_CPNG_SHIM_H

#include <png.h>

/// PNG_IMAGE_PNG_SIZE_MAX, a macro Swift cannot call: the most bytes png_image_write_to_memory can write for `image`,
/// whatever the compression achieves.
static inline png_alloc_size_t custodian_png_image_png_size_max(png_image image) {
    return PNG_IMAGE_PNG_SIZE_MAX(image);
}

#endif
