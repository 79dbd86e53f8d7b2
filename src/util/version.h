/* version.h — gpusvm's version, written in this one place (every tool's --version prints it). */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#define GS_VERSION "0.9.0"

#endif
