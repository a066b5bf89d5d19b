// Network namespaces: a link's interface may live in another one than gnf (`ip netns add NAME`
// makes /run/netns/NAME). A socket stays in the namespace it was made in, so only its making (and
// the AF_XDP teardown, which detaches the XDP program by interface index) must happen there.
#pragma once
#include <functional>
#include <string>

namespace gnf::wire {

// A network namespace, held open from construction: it stays the same namespace (and alive, with
// its interfaces) even if its name is deleted or reused meanwhile, so a teardown at the end of the
// run reaches the interface the link was opened on.
// "gnf's network namespace" or "network namespace 'NAME'", for messages.
std::string netns_description(const std::string& name);

class Netns {
 public:
  // "" is gnf's own namespace. Throws UserError if /run/netns/`name` cannot be opened.
  explicit Netns(std::string name);
  ~Netns();
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;

  // Runs `fn` inside the namespace, on a thread of its own that ends with it, so no other thread
  // of gnf ever changes namespace (gnf's own: here, on the caller's thread). Whatever `fn` throws
  // is rethrown here; UserError if the namespace cannot be entered, with the kernel's reason.
  void run(const std::function<void()>& fn) const;

  std::string description() const;

 private:
  std::string name_;
  int fd_ = -1;
};

}  // namespace gnf::wire
