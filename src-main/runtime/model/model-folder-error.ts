/** A model folder that cannot be used, naming the file at fault and what is wrong with it. */
export class ModelFolderError extends Error {
  constructor(
    readonly folder: string,
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem} (model folder ${folder})`);
    this.name = 'ModelFolderError';
  }
}
