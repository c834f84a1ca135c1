#include "heap_trim.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ffhm {

bool TrimHeap(std::string* reason) {
#ifdef __GLIBC__
  const bool isReleased = malloc_trim(0) != 0;
  *reason = isReleased ? "trimmed" : "nothing to trim";
  return isReleased;
#else
  *reason = "not available on this platform";
  return false;
#endif
}

}  // namespace ffhm
