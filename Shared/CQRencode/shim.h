// libqrencode (Debian: libqrencode-dev), the QR code encoder behind the links service's images.
#ifndef CUSTODIAN_CQRENCODE_SHIM_H
#define CUSTODIAN_CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
