/* version.h — gpusvm's version, the one place it is written (the tools' --version prints it). */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#define GS_VERSION "0.9.0"

#endif
