/* bcryptprimitives.dll for Wine 8, which lacks it: Go >= 1.24 Windows
 * binaries take their random bytes from its ProcessPrng. This one asks
 * advapi32's SystemFunction036 (RtlGenRandom), which Wine has. Built by
 * scripts/wine-setup.sh with x86_64-w64-mingw32-gcc; used only in the
 * test Wine prefix. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
