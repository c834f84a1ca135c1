import { useSlice } from '../../store/react';

/**
 * What a newcomer sees in an empty chat while only the bundled model is installed: what that
 * model is (a tiny demo trained on Jane Austen, there so the app works with nothing to
 * download), what to expect from it, and the way to a real model.
 */
export function FirstRunCard() {
  const openAddModel = useSlice('ui', (s) => s.setAddModelOpen);
  const demo = useSlice('slots', (s) => s.models.find((m) => m.isBundled && m.isDefaultVariant));
  const size = demo?.numParams ? `${Math.round(demo.numParams / 1e6)}-million-parameter` : 'small';
  return (
    <section className="first-run" data-testid="first-run-card" aria-labelledby="first-run-title">
      <h2 id="first-run-title">You are chatting with a tiny demo model</h2>
      <p>
        <b>{demo?.name ?? 'The bundled model'}</b> is a {size} model trained on Jane Austen&apos;s novels. It
        ships with First Frame so everything works with nothing to download. Expect sentences in the style of{' '}
        <i>Pride and Prejudice</i>, not real answers: it is there to show where the time before each answer
        goes.
      </p>
      <p>
        For real answers, add a model: get one from Hugging Face in the app, or put one you have downloaded
        (an ONNX folder or a GGUF file) into the models folder.
      </p>
      <div className="actions">
        <button
          type="button"
          className="primary"
          data-testid="first-run-add-model"
          onClick={() => openAddModel(true)}
        >
          Add a model
        </button>
        <span className="muted">or type below to try the demo.</span>
      </div>
    </section>
  );
}
