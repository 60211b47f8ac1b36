// libjpeg-turbo's TurboJPEG API (Debian: libturbojpeg0-dev): decodes photos to grey pixels for the QR decoder,
// and encodes the test images.
#ifndef CUSTODIAN_CTURBOJPEG_SHIM_H
#define CUSTODIAN_CTURBOJPEG_SHIM_H

#include <stddef.h>
#include <turbojpeg.h>

#endif
