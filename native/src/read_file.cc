#include "read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "advice.h"
#include "host_block.h"
#include "native_buffer.h"

namespace ffhm {
namespace {

struct ReadOptions {
  bool isLockWanted = false;
  bool isLimitBypassed = false;
  bool isWillNeedWanted = false;
  bool isCudaWanted = false;
  size_t chunkBytes = 16u << 20;
  std::string backing = "auto";
};

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

ReadOptions ParseOptions(const Napi::Value& value) {
  ReadOptions options;
  if (!value.IsObject()) return options;
  Napi::Object obj = value.As<Napi::Object>();
  options.isLockWanted = obj.Get("lock").ToBoolean().Value();
  options.isLimitBypassed = obj.Get("lockBeyondLimit").ToBoolean().Value();
  options.isWillNeedWanted = obj.Get("willNeed").ToBoolean().Value();
  options.isCudaWanted = obj.Get("registerCuda").ToBoolean().Value();
  if (obj.Get("chunkBytes").IsNumber()) {
    const int64_t chunk = obj.Get("chunkBytes").As<Napi::Number>().Int64Value();
    if (chunk >= 4096) options.chunkBytes = static_cast<size_t>(chunk);
  }
  if (obj.Get("backing").IsString()) options.backing = obj.Get("backing").As<Napi::String>().Utf8Value();
  return options;
}

class ReadFileWorker : public Napi::AsyncWorker {
 public:
  ReadFileWorker(Napi::Env env, int fd, std::shared_ptr<HostBlock> block, Napi::ArrayBuffer engineBuffer,
                 ReadOptions options)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), fd_(fd),
        block_(std::move(block)), options_(std::move(options)) {
    if (!engineBuffer.IsEmpty()) engineBuffer_ = Napi::Persistent(engineBuffer);
  }
  ~ReadFileWorker() override {
    if (fd_ >= 0) close(fd_);
  }
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    auto start = std::chrono::steady_clock::now();
    block_->Lock(options_.isLockWanted, options_.isLimitBypassed);
    lockMs_ = MsSince(start);
    start = std::chrono::steady_clock::now();
    if (options_.isWillNeedWanted) AdviseWillNeedFd(fd_, block_->byteLength(), AdviceMethod::kFadvise);
    adviseMs_ = MsSince(start);
    start = std::chrono::steady_clock::now();
    ReadAll();
    readMs_ = MsSince(start);
    block_->RegisterCuda(options_.isCudaWanted);
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::ArrayBuffer engine = engineBuffer_.IsEmpty() ? Napi::ArrayBuffer() : engineBuffer_.Value();
    Napi::Object result = Napi::Object::New(env);
    result.Set("buffer", NativeBuffer::Wrap(env, block_, engine));
    result.Set("lockMs", lockMs_);
    result.Set("adviseMs", adviseMs_);
    result.Set("readMs", readMs_);
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override {
    block_->Release();
    deferred_.Reject(error.Value());
  }

 private:
  // pread in large chunks until the whole file is in; short reads and EINTR are retried.
  void ReadAll() {
    auto* dst = static_cast<char*>(block_->data());
    const size_t total = block_->byteLength();
    size_t done = 0;
    while (done < total) {
      const size_t want = std::min(options_.chunkBytes, total - done);
      const ssize_t got = pread(fd_, dst + done, want, static_cast<off_t>(done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return SetError(std::string("pread failed: ") + std::strerror(errno));
      if (got == 0) return SetError("file shrank while it was read");
      done += static_cast<size_t>(got);
    }
  }

  Napi::Promise::Deferred deferred_;
  int fd_;
  std::shared_ptr<HostBlock> block_;
  Napi::Reference<Napi::ArrayBuffer> engineBuffer_;
  ReadOptions options_;
  double lockMs_ = 0;
  double adviseMs_ = 0;
  double readMs_ = 0;
};

}  // namespace

Napi::Value ReadFileInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "readFileInto(path, options)");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  ReadOptions options = ParseOptions(info[1]);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Napi::Error::New(env, "open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const std::string message = "fstat " + path + ": " + std::strerror(errno);
    close(fd);
    throw Napi::Error::New(env, message);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  std::shared_ptr<HostBlock> block;
  Napi::ArrayBuffer engineBuffer;
  if (ResolveBacking(env, options.backing) == Backing::kEngine) {
    block = CreateEngineBlock(env, size, &engineBuffer);
  } else {
    std::string error;
    block = HostBlock::MapAnonymous(size, &error);
    if (!block) {
      close(fd);
      throw Napi::Error::New(env, error);
    }
  }
  auto* worker = new ReadFileWorker(env, fd, block, engineBuffer, std::move(options));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace ffhm
