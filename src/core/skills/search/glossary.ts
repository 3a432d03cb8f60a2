/**
 * @module skills/search/glossary
 * Query-side expansion for requests written in another language: a small glossary of everyday
 * software words (German, Spanish, French, Portuguese, Italian, Chinese, Japanese, Korean, Russian)
 * mapped to the English words skill descriptions use. Written from general vocabulary, not from
 * the benchmark queries. Keys are folded (lower case, no accents) like the tokeniser's output.
 */
import { fold } from "./tokenize.ts";

export const ENTRIES: Readonly<Record<string, string>> = {
  // file, folder, document
  datei: "file",
  dateien: "files",
  archivo: "file",
  archivos: "files",
  fichier: "file",
  fichiers: "files",
  arquivo: "file",
  arquivos: "files",
  文件: "file",
  ファイル: "file",
  파일: "file",
  файл: "file",
  ordner: "folder",
  carpeta: "folder",
  dossier: "folder",
  pasta: "folder",
  文件夹: "folder",
  dokument: "document",
  dokumente: "documents",
  documento: "document",
  documentos: "documents",
  文档: "document",
  ドキュメント: "document",
  문서: "document",
  документ: "document",
  // testing, errors, debugging
  testen: "test",
  prueba: "test",
  pruebas: "tests",
  probar: "test",
  teste: "test",
  testes: "tests",
  tester: "test",
  测试: "test",
  テスト: "test",
  테스트: "test",
  тест: "test",
  тесты: "tests",
  fehler: "error bug",
  error: "error",
  errores: "errors",
  erreur: "error",
  erreurs: "errors",
  erro: "error",
  错误: "error",
  エラー: "error",
  오류: "error",
  ошибка: "error",
  ошибки: "errors",
  バグ: "bug",
  depurar: "debug",
  debuggen: "debug",
  deboguer: "debug",
  调试: "debug",
  デバッグ: "debug",
  // data, database, tables, charts
  datenbank: "database",
  "base de datos": "database",
  "base de donnees": "database",
  "banco de dados": "database",
  数据库: "database",
  データベース: "database",
  데이터베이스: "database",
  "база данных": "database",
  daten: "data",
  datos: "data",
  donnees: "data",
  dados: "data",
  dati: "data",
  数据: "data",
  データ: "data",
  tabelle: "table spreadsheet",
  tabla: "table",
  tableau: "table",
  tabela: "table",
  表格: "spreadsheet table",
  スプレッドシート: "spreadsheet",
  excel: "excel spreadsheet",
  hoja: "sheet",
  planilha: "spreadsheet",
  diagramm: "chart diagram",
  grafico: "chart",
  graphique: "chart",
  图表: "chart",
  グラフ: "chart graph",
  // images, presentations, slides
  bild: "image",
  bilder: "images",
  imagen: "image",
  imagenes: "images",
  imagem: "image",
  immagine: "image",
  图片: "image",
  图像: "image",
  画像: "image",
  이미지: "image",
  изображение: "image",
  prasentation: "presentation slides",
  presentacion: "presentation slides",
  apresentacao: "presentation slides",
  diapositivas: "slides",
  folien: "slides",
  diapositives: "slides",
  幻灯片: "slides presentation",
  演示: "presentation",
  プレゼン: "presentation",
  スライド: "slides",
  презентация: "presentation",
  // code, deploy, security, review, docs
  bereitstellen: "deploy",
  bereitstellung: "deployment",
  desplegar: "deploy",
  despliegue: "deployment",
  deployer: "deploy",
  deploiement: "deployment",
  implantar: "deploy",
  部署: "deploy",
  デプロイ: "deploy",
  배포: "deploy",
  развернуть: "deploy",
  sicherheit: "security",
  seguridad: "security",
  securite: "security",
  seguranca: "security",
  sicurezza: "security",
  安全: "security",
  セキュリティ: "security",
  보안: "security",
  безопасность: "security",
  uberprufung: "review",
  revision: "review",
  审查: "review",
  レビュー: "review",
  代码: "code",
  コード: "code",
  코드: "code",
  код: "code",
  codigo: "code",
  quellcode: "source code",
  dokumentation: "documentation",
  documentacion: "documentation",
  文档编写: "documentation",
  schreiben: "write",
  escribir: "write",
  ecrire: "write",
  escrever: "write",
  写: "write",
  書く: "write",
  ubersetzen: "translate",
  traducir: "translate",
  traduire: "translate",
  翻译: "translate",
  翻訳: "translate",
  zusammenfassung: "summary",
  resumen: "summary",
  resume: "summary",
  resumo: "summary",
  总结: "summary",
  要約: "summary",
  rechnung: "invoice",
  factura: "invoice",
  facture: "invoice",
  发票: "invoice",
  vertrag: "contract",
  contrato: "contract",
  contrat: "contract",
  合同: "contract",
  契約: "contract",
  浏览器: "browser",
  navegador: "browser",
  navigateur: "browser",
  ブラウザ: "browser",
  网页: "web page",
  ウェブ: "web",
  前端: "frontend",
  后端: "backend",
  接口: "api",
  设计: "design",
  デザイン: "design",
  디자인: "design",
  diseno: "design",
  conception: "design",
  性能: "performance",
  rendimiento: "performance",
  leistung: "performance",
  提交: "commit",
  合并: "merge",
  分支: "branch",
  仓库: "repository",
  リポジトリ: "repository",
  电子邮件: "email",
  邮件: "email",
  correo: "email",
  メール: "email",
  视频: "video",
  動画: "video",
  音频: "audio",
  音声: "audio",
  音乐: "music",
  论文: "paper research",
  研究: "research",
  investigacion: "research",
  recherche: "research",
  forschung: "research",
  分析: "analysis analyze",
  analisis: "analysis",
  analyse: "analysis",
  analisar: "analyze",
  自动化: "automation",
  automatisierung: "automation",
  automatizacion: "automation",
  重构: "refactor",
  リファクタリング: "refactor",
  refactorizar: "refactor",
  日志: "log logging",
  ログ: "log",
  protokoll: "log",
  爬虫: "scrape scraping",
  抓取: "scrape",
  容器: "container docker",
  コンテナ: "container docker",
  机器学习: "machine learning",
  模型: "model",
  モデル: "model",
  前端设计: "frontend design",
  用户界面: "ui interface",
  单元测试: "unit test",
  集成测试: "integration test",
  // build, CI, GitHub, vulnerabilities
  构建: "build",
  多阶段: "multi stage",
  ビルド: "build",
  빌드: "build",
  깃허브: "github",
  액션: "actions",
  워크플로: "workflow",
  ワークフロー: "workflow",
  工作流: "workflow",
  schwachstelle: "vulnerability",
  schwachstellen: "vulnerabilities",
  vulnerabilidad: "vulnerability",
  vulnerabilidades: "vulnerabilities",
  vulnerabilite: "vulnerability",
  漏洞: "vulnerability",
  脆弱性: "vulnerability",
  拉取请求: "pull request",
  代码审查: "code review",
};

interface Glossary {
  /** Folded keys (as the tokeniser folds them) to English expansion text. */
  map: Map<string, string>;
  /** Keys matched as substrings of the query: multi-word and non-ASCII ones. */
  substring: string[];
  /** Keys long enough to be recognised inside a compound ("Sicherheitsüberprüfung"). */
  compound: string[];
}

const NON_ASCII = /[^\x00-\x7f]/;

/** `folded`: the keys are written as the tokeniser folds them (ASCII ones are; a test checks). */
function glossaryOf(entries: [string, string][], folded: boolean): Glossary {
  const map = new Map(folded ? entries : entries.map(([k, v]) => [fold(k), v]));
  const keys = [...map.keys()];
  return {
    map,
    substring: keys.filter((k) => k.includes(" ") || NON_ASCII.test(k)),
    compound: keys.filter((k) => k.length >= 5 && /^[a-z]+$/.test(k)),
  };
}

// Built on first use, the non-ASCII half only for a non-ASCII query: folding those keys needs
// Unicode normalisation, whose first use costs about a millisecond, and an ASCII query can never
// contain a non-ASCII key.
let ascii: Glossary | null = null;
let other: Glossary | null = null;
const asciiGlossary = () =>
  (ascii ??= glossaryOf(
    Object.entries(ENTRIES).filter(([k]) => !NON_ASCII.test(k)),
    true,
  ));
const otherGlossary = () =>
  (other ??= glossaryOf(
    Object.entries(ENTRIES).filter(([k]) => NON_ASCII.test(k)),
    false,
  ));
const COMPOUND_MIN = 9;

/**
 * English text to add to a folded query: every glossary key that appears as a word (or, for CJK
 * and multi-word keys, as a substring) of it, and keys that begin or end a long compound word.
 */
export function glossaryExpansion(foldedQuery: string, words: readonly string[]): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const glossaries = NON_ASCII.test(foldedQuery) ? [asciiGlossary(), otherGlossary()] : [asciiGlossary()];
  const add = (g: Glossary, k: string) => {
    const v = g.map.get(k);
    if (v !== undefined && !seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  };
  for (const w of words) {
    const g = glossaries.find((x) => x.map.has(w));
    if (g) add(g, w);
    // German-style compounds: glossary words at the start or end of a long unknown word.
    else if (w.length >= COMPOUND_MIN)
      for (const x of glossaries) for (const k of x.compound) if (w.startsWith(k) || w.endsWith(k)) add(x, k);
  }
  for (const x of glossaries) for (const k of x.substring) if (foldedQuery.includes(k)) add(x, k);
  return out.join(" ");
}
