import { existsSync } from 'node:fs'
import { request } from 'node:http'
import { loadRelease, promoteRelease } from '../../indexer/engine.js'
import { DataDir } from '../../src/store/layout.js'
import { EngineRepository } from '../../src/store/search-engine/repository.js'
import { releaseRepositoryConformance } from './conformance.js'

/**
 * The conformance suite against a real Elasticsearch 8 in a throwaway container, wherever a Docker
 * engine answers (CI runners with Docker, developer machines). Needs the optional dev dependency
 * `testcontainers`; skipped with the reason printed where either is missing.
 */
const ES_IMAGE = `docker.elastic.co/elasticsearch/elasticsearch:${process.env.ES_VERSION ?? '8.19.2'}`

/** The few testcontainers calls used here (the package is optional, so it is imported by name). */
interface StartedContainer {
  getHost(): string
  getMappedPort(port: number): number
  stop(): Promise<unknown>
}
interface ContainerBuilder {
  withEnvironment(env: Record<string, string>): ContainerBuilder
  withExposedPorts(...ports: number[]): ContainerBuilder
  withWaitStrategy(w: unknown): ContainerBuilder
  withStartupTimeout(ms: number): ContainerBuilder
  start(): Promise<StartedContainer>
}
interface Testcontainers {
  GenericContainer: new (image: string) => ContainerBuilder
  Wait: { forHttp(path: string, port: number): { forStatusCode(code: number): unknown } }
}

/** Answers whether a Docker engine responds on DOCKER_HOST (unix socket or tcp) or the default socket. */
function dockerAnswers(): Promise<boolean> {
  const host = process.env.DOCKER_HOST
  let target: { host: string; port: number } | { socketPath: string }
  if (host?.startsWith('tcp://')) {
    const u = new URL(host.replace('tcp://', 'http://'))
    target = { host: u.hostname, port: Number(u.port || 2375) }
  } else {
    const socketPath = host?.startsWith('unix://') ? host.slice('unix://'.length) : '/var/run/docker.sock'
    if (!existsSync(socketPath)) return Promise.resolve(false)
    target = { socketPath }
  }
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on('error', () => resolve(false))
    req.on('timeout', () => req.destroy())
    req.end()
  })
}

const moduleName = 'testcontainers'
const tc = (await import(moduleName).catch(() => undefined)) as Testcontainers | undefined
const skip = !tc
  ? 'the testcontainers package is not installed (npm install -D testcontainers@^11)'
  : !(await dockerAnswers())
    ? 'no Docker engine answers (DOCKER_HOST or /var/run/docker.sock)'
    : undefined

releaseRepositoryConformance(
  `search-engine (elasticsearch 8 in a container)`,
  async (dataDir) => {
    const container = await new tc!.GenericContainer(ES_IMAGE)
      .withEnvironment({ 'discovery.type': 'single-node', 'xpack.security.enabled': 'false', ES_JAVA_OPTS: '-Xms1g -Xmx1g' })
      .withExposedPorts(9200)
      .withWaitStrategy(tc!.Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=1s', 9200).forStatusCode(200))
      .withStartupTimeout(180_000)
      .start()
    const repo = await EngineRepository.connect(`http://${container.getHost()}:${container.getMappedPort(9200)}`, 'elasticsearch', 'hwfacts-test')
    const data = new DataDir(dataDir)
    const id = data.promotedId()!
    await loadRelease(repo, data, id)
    await promoteRelease(repo, id, { allowPartial: true })
    return {
      repo,
      close: async () => {
        await repo.close()
        await container.stop()
      }
    }
  },
  skip ? { skip } : {}
)
