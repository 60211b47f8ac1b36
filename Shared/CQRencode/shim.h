// libqrencode (Debian: libqrencode-dev), the QR code encoder behind CustodianQR: the links service's images
// and the command line's codes.
#ifndef CUSTODIAN_CQRENCODE_SHIM_H
#define CUSTODIAN_CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
